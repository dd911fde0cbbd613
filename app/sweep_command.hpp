// `t9ksim sweep [SCENARIO] --vary PATH=VALUES ...`: runs the scenario at every point of a grid of
// field values (several --vary make a grid, the first varying slowest), each for R replications on
// common random numbers (every point uses the same seed and replication numbers), then writes
// OUT/point-<i>/ (scenario.yaml, rep-<r>/, summary.json), OUT/sweep.csv, OUT/summary.json and
// OUT/report.html with one curve per metric and queue (docs/reports.md "Sweeps").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/compare_command.hpp"
#include "runs/run_one.hpp"
#include "runs/work.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

struct SweepArgs {
  std::string scenario;              // empty: the embedded default scenario
  std::vector<std::string> varies;   // PATH=VALUES
  std::vector<std::string> sets;     // --set PATH=VALUE, applied before each point's values
  std::vector<std::string> targets;  // --target, as `t9ksim size` takes them: checked per point
  std::string minimise;              // --minimise [GROUP=VALUE] METRIC
  bool zip = false;                  // --zip: the --vary lists move together, not as a grid
  std::string out_dir = "t9ksim-sweep";
  std::optional<std::uint64_t> replications;  // default: the scenario's spec.replications
  unsigned threads = 0;
  bool report = true;
  bool quiet = false;
  std::int64_t max_jobs = scenarios::kDefaultMaxJobs;  // --max-jobs (docs/reliability.md)
  runs::RunOne run_one;
  std::function<int(const runs::Work&)> plan;  // `t9ksim plan sweep`: as CompareArgs::plan
};

// The text of a SCENARIO argument and the name messages give it: the file's bytes, or the
// embedded default scenario when `scenario` is empty. nullopt, after printing why, when the file
// is not a regular file.
std::optional<std::pair<std::string, std::string>> read_scenario_arg(const std::string& scenario);

// Exit code: 0 ok, 1 a run failed, 2 bad input.
int sweep_command(const SweepArgs& args);

}  // namespace t9k::app
