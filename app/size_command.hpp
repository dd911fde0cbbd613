// `t9ksim size [SCENARIO] --param PATH=LO:HI[:STEP] --target '...' ...`: goal seeking. Finds the
// smallest (or, with --largest, the largest) value of one scenario field that meets every target,
// by bisection over LO..HI with replications on common random numbers at each value evaluated,
// then states the confidence with which each target is met at the answer and at the value just
// beyond it, and, when no value meets the targets, what bound them (docs/reports.md "Goal
// seeking").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/compare_command.hpp"
#include "runs/run_one.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

struct SizeArgs {
  std::string scenario;              // empty: the embedded default scenario
  std::string param;                 // PATH=LO:HI[:STEP]
  std::vector<std::string> targets;  // "[GROUP=VALUE] METRIC OP THRESHOLD"
  std::vector<std::string> sets;     // --set, applied before the parameter
  bool largest = false;              // the largest value that meets the targets (default: smallest)
  std::string out_dir = "t9ksim-size";
  std::optional<std::uint64_t> replications;
  unsigned threads = 0;
  bool report = true;
  bool quiet = false;
  std::int64_t max_jobs = scenarios::kDefaultMaxJobs;  // --max-jobs (docs/reliability.md)
  runs::RunOne run_one;
};

// Exit code: 0 (also when no value meets the targets: the summary says so), 1 a run failed,
// 2 bad input.
int size_command(const SizeArgs& args);

}  // namespace t9k::app
