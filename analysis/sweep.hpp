// Parameter sweeps (docs/reports.md "Sweeps"): the aggregate of `t9ksim sweep`. Each point is a
// replications folder OUT/point-<i>/ (rep-<r>/ per replication, its own summary.json); the sweep
// writes OUT/summary.json (kind "sweep": parameters, points and their values) and OUT/sweep.csv,
// one row per point x group x metric with the 95 % interval across replications.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/aggregate.hpp"

namespace t9k::analysis {

struct SweepPoint {
  std::vector<std::string> values;  // one per parameter, as given on the command line
  std::filesystem::path dir;        // OUT/point-<i>
  ReplicationSummary replications;
};

// The answer of `t9ksim size` (analysis/goal.hpp), kept with the points it evaluated.
struct GoalSummary {
  std::string parameter;
  std::string direction;             // "smallest" or "largest"
  std::vector<std::string> targets;  // as given
  std::optional<std::string>
      answer;  // the value found; unset: no value in range meets every target
  std::optional<std::string> neighbour;  // the evaluated value just beyond the answer that fails
  std::vector<std::string>
      findings;  // sentences: each target at the answer and its neighbour, what binds
  // The values in the order the search evaluated them, and whether each met every target.
  std::vector<std::pair<std::string, bool>> search_path;
};

struct SweepSummary {
  std::string scenario;
  std::string version;
  std::vector<std::string> parameters;  // the --vary paths, in order
  std::vector<SweepPoint> points;       // in grid order (the first parameter varies slowest)
  std::optional<GoalSummary> goal;      // set for `t9ksim size`
  std::vector<std::string> targets;     // `t9ksim sweep --target`: checked at every point
  std::string minimise;  // `--minimise`: the full metric name whose smallest mean is chosen
  // `--zip`: the parameters move together (point i has the i-th value of each), not as a grid.
  bool zipped = false;
  // `--vary NAME=PATH=VALUES`: the short names given, one per parameter ("" where none); empty
  // when no parameter has one.
  std::vector<std::string> aliases;
};

// `sweep --minimise`: the point with the smallest mean of s.minimise among those meeting every
// target (all points without targets), the first in grid order on a tie; none when no point
// meets every target, none has the metric, or nothing is minimised.
std::optional<std::size_t> chosen_point(const SweepSummary& s);

// A metric name split into its group (docs/outputs.md): "wait_p90_s" -> {"cluster", "",
// "wait_p90_s"}, "queue/production/wait_p90_s" -> {"queue", "production", "wait_p90_s"}.
struct MetricName {
  std::string group;
  std::string value;
  std::string metric;
};
MetricName split_metric_name(const std::string& name);

// The values of one `--vary PATH=VALUES` or `size --param PATH=VALUES`: "40:96:8" (FROM:TO:STEP,
// inclusive; three numbers or three durations), "40:96" (two numbers, step 1), "a,b,c" (YAML
// values split at top-level commas) or a single value. Empty with
// `error` set when the text is none of these or has more than kMaxSweepPoints values.
inline constexpr std::size_t kMaxSweepPoints = 1000;
std::vector<std::string> sweep_values(std::string_view spec, std::string& error);

// Short labels of parameter paths for charts, tables and the console, distinct from each other:
// each path's last segment (escaped dots kept in it, unescaped), lengthened segment by segment
// while two coincide: "count" for cluster.nodePools[name=h100].count, "nvidia.com/gpu" for
// ...requests.nvidia\.com/gpu; "[name=h100].count" and "[name=a100].count" beside each other.
std::vector<std::string> parameter_labels(const std::vector<std::string>& paths);
// The sweep's labels: the aliases given, the short labels elsewhere (sweep.csv's columns too).
std::vector<std::string> parameter_labels(const SweepSummary& s);

// sweep.csv: point, one column per parameter, group, group_value, metric, n, mean, sd, half_width,
// low, high (docs/outputs.md).
std::string sweep_csv(const SweepSummary& s);
std::string sweep_summary_json(const SweepSummary& s, const std::filesystem::path& dir);

// Loads the points' replications (point dirs with their rep dirs), writes each point's
// summary.json, then dir/sweep.csv and dir/summary.json (last: it marks the sweep complete).
SweepSummary write_sweep_summary(
    const std::filesystem::path& dir, const std::vector<std::string>& parameters,
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::filesystem::path>>>&
        points,
    std::optional<GoalSummary> goal = std::nullopt, std::vector<std::string> targets = {},
    std::string minimise = {}, bool zipped = false, std::vector<std::string> aliases = {});
// Reads dir/summary.json of kind "sweep" and the points' summaries. Throws std::runtime_error.
SweepSummary load_sweep_summary(const std::filesystem::path& dir);

}  // namespace t9k::analysis
