// `t9ksim run`: load a scenario (or the embedded default), simulate it for one or more
// replications, write the outputs and report.html, and optionally check its `expect` block.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runs/plan.hpp"
#include "runs/plugin_args.hpp"
#include "runs/run_one.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

struct RunArgs {
  std::string scenario;  // empty: the embedded default scenario
  std::string out_dir;  // empty: results/<scenario file stem>, results/default for the embedded one
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> replications;  // default: the scenario's spec.replications
  std::uint64_t first_replication = 0;
  unsigned threads = 0;  // 0: one per hardware thread
  bool events = false;   // write events.jsonl
  bool objects = false;  // write objects.yaml (the final Jobs, PodGroups and Queues)
  bool check = false;    // check the scenario's expect block; exit 1 on a mismatch
  bool report = true;    // write report.html
  bool quiet = false;
  std::int64_t max_jobs = scenarios::kDefaultMaxJobs;  // --max-jobs (docs/reliability.md)
  bool skip_bad_rows =
      false;  // malformed trace rows are skipped (counted) instead of refusing to start
  std::vector<runs::PluginArg> plugins;        // --plugin, replacing the scenario's
  std::vector<runs::ReferenceArg> references;  // --reference (differential testing)
  std::vector<std::string> sets;     // --set PATH=VALUE, in order (scenarios/format/overlay.hpp)
  std::vector<std::string> targets;  // --target, checked over the replications (analysis/goal.hpp)
  const runs::PlanRequest* plan =
      nullptr;  // `t9ksim plan run`: write the plan, run nothing (runs/plan.hpp)
};

// Returns the process exit code: 0 ok, 1 simulation error / invariant / failed check, 2 bad input.
int run_command(const RunArgs& args);

// The options each run of `t9ksim run ARGS` gets (events, objects, check, seed, bad rows, plugins).
runs::RunOneOptions run_one_options(const RunArgs& args);

// The embedded default scenario's YAML text (scenarios/default.yaml, compiled in).
const char* default_scenario_text();

}  // namespace t9k::app
