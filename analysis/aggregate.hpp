// Statistics over replications and policy comparisons (docs/reports.md). Reads results
// directories written by `t9ksim run` (docs/outputs.md) and writes the aggregate summary.json:
//  - replications: DIR/rep-<i>/ each a run; DIR/summary.json has, per metric, the mean, sample
//    standard deviation, 95 % Student-t half-width, n and the per-replication values;
//  - comparison: DIR/<variant>/ each a replications directory (the first is the base);
//    DIR/summary.json has every variant's statistics and, per variant, the paired difference
//    against the base (common random numbers: replication i of every variant uses the same seed
//    and replication number) with its interval and significance at 95 %.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/outputs.hpp"
#include "analysis/statistics.hpp"

namespace t9k::analysis {

inline constexpr double kConfidence = 0.95;

// One run's summary.json, plus steady-state metrics derived from its timeseries.csv.
struct RunSummary {
  std::filesystem::path dir;
  std::string version;
  std::string scenario;
  std::string scenario_hash;
  std::string fingerprint;
  std::uint64_t seed = 0;
  std::uint64_t replication = 0;
  double horizon_s = 0;
  bool invariants_ok = true;
  std::vector<std::string> warnings;  // the run's summary.json "warnings"
  std::vector<std::string> notes;     // the run's summary.json "notes"
  std::map<std::string, double> metrics;
  RunSetup setup;  // what the run simulated (setup.present false for older summaries)
};

// Reads dir/summary.json and, when present, dir/timeseries.csv, adding:
//  - warmup_s: the warm-up MSER-5 picks on the cluster's allocated-utilisation series;
//  - steady_utilization_allocated, steady_utilization_productive, steady_pending_jobs: the cluster
//    series averaged over the buckets after that warm-up;
//  - steady_fairness_jain: Jain's index over the queues' allocated GPUs (queues with allocated or
//    pending work in the bucket), averaged over the same buckets.
// Throws std::runtime_error when summary.json is missing or malformed.
RunSummary load_run_summary(const std::filesystem::path& dir);

struct SteadyState {
  double warmup_s = 0;
  double utilization_allocated = 0;
  double utilization_productive = 0;
  double pending_jobs = 0;
  double fairness_jain = 1;
};
// The derivation above over timeseries.csv text.
SteadyState steady_state(const std::string& timeseries_csv_text);

struct MetricSummary {
  std::vector<double> values;  // in replication order
  Interval interval;
};

struct ReplicationSummary {
  std::string scenario;
  std::string scenario_hash;
  std::string version;
  std::vector<RunSummary> runs;                  // sorted by replication number
  std::map<std::string, MetricSummary> metrics;  // every metric any run has
  // Percentiles over every run's jobs together (analysis/pooled.hpp), summary.json "pooled":
  // one value each, no interval. Empty when the runs' jobs.csv were not there to read.
  std::map<std::string, double> pooled;
  std::int64_t pooled_jobs = 0;
};

// summary.json "pooled" of a replications body, read into s (nothing when absent).
void read_pooled(const nlohmann::json& body, ReplicationSummary& s);

// Sorts runs by replication; throws std::invalid_argument for an empty set or a repeated
// replication number.
ReplicationSummary summarize_replications(std::vector<RunSummary> runs,
                                          double confidence = kConfidence);

// The aggregate summary.json (sorted keys); rep dirs are written relative to `dir`.
std::string replication_summary_json(const ReplicationSummary& s, const std::filesystem::path& dir);
// Loads every rep dir, writes dir/summary.json atomically and returns the summary.
ReplicationSummary write_replication_summary(const std::filesystem::path& dir,
                                             const std::vector<std::filesystem::path>& rep_dirs);

struct VariantSummary {
  std::string name;
  ReplicationSummary replications;
  std::map<std::string, PairedDifference> vs_base;  // empty for the base itself
};

// A comparison variant's overlay (`t9ksim compare --variant NAME=FILE`): the file as given and
// its text, for the report's first screen.
struct Overlay {
  std::string file;
  std::string text;
};

struct ComparisonSummary {
  std::vector<VariantSummary> variants;     // [0] is the base
  std::map<std::string, Overlay> overlays;  // by variant name; none for the base
};

// Pairs replications by number. Throws std::invalid_argument when a variant's replication
// numbers or seeds differ from the base's (that would not be common random numbers).
ComparisonSummary compare_variants(std::vector<std::pair<std::string, ReplicationSummary>> variants,
                                   double confidence = kConfidence);
std::string comparison_summary_json(const ComparisonSummary& c, const std::filesystem::path& dir);
// variants[0] is the base; each entry names a variant and its replication directories.
// Writes each variant's replication summary into the common parent of its rep dirs when that is
// a folder of its own under dir, and dir/summary.json with the comparison.
ComparisonSummary write_comparison_summary(
    const std::filesystem::path& dir,
    const std::vector<std::pair<std::string, std::vector<std::filesystem::path>>>& variants,
    const std::map<std::string, Overlay>& overlays = {});

}  // namespace t9k::analysis
