// Recorded versus simulated (`t9ksim replay-check`, docs/traces.md "Recorded versus simulated"):
// the jobs of a cluster export, replayed, compared one by one with what the cluster recorded.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/csv.hpp"

namespace t9k::analysis {

// What the cluster recorded for one job, in seconds on the simulation's clock.
struct RecordedJob {
  std::string job;  // "namespace/name", as jobs.csv names it
  double submit_s = 0;
  std::optional<double> start_s;  // set when the start was recorded exactly (pods, startTime)
  double end_s = 0;
};

// What the simulation gave (jobs.csv: first_running_s, end_s; empty when it never happened).
struct SimulatedJob {
  std::optional<double> start_s;
  std::optional<double> end_s;
};

struct ReplayCheckRow {
  RecordedJob recorded;
  SimulatedJob simulated;
  bool found = false;                          // the job is in jobs.csv
  std::optional<double> wait_error_s() const;  // simulated wait - recorded wait
  std::optional<double> end_error_s() const;   // simulated end - recorded end
};

// Percentiles of |error| (linear interpolation between closest ranks, as docs/outputs.md).
struct ErrorStats {
  std::int64_t jobs = 0;  // jobs with both values
  double median_abs_s = 0;
  double p90_abs_s = 0;
  double max_abs_s = 0;
  double mean_s = 0;  // signed: > 0 when the simulation waits or ends later
};

struct ReplayCheck {
  std::vector<ReplayCheckRow> rows;  // in recorded order
  ErrorStats wait;
  ErrorStats end;
  std::int64_t not_found = 0;     // recorded jobs missing from jobs.csv
  std::int64_t not_started = 0;   // found, never running in the simulation
  std::int64_t not_finished = 0;  // found, not ended by the horizon
  std::int64_t wait_unknown = 0;  // recorded start approximate: wait not compared
};

// Simulated jobs from a jobs.csv table, by job.
std::map<std::string, SimulatedJob> simulated_jobs(const CsvTable& jobs_csv);

ReplayCheck compare_replay(const std::vector<RecordedJob>& recorded,
                           const std::map<std::string, SimulatedJob>& simulated);

// replay-check.csv (one documented row per job) and the lines `t9ksim replay-check` prints.
std::string replay_check_csv(const ReplayCheck& c);
std::string replay_check_summary(const ReplayCheck& c);

}  // namespace t9k::analysis
