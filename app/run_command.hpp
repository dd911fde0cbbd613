// `t9ksim run`: load a scenario (or the embedded default), simulate it for one or more
// replications, write the outputs and report.html, and optionally check its `expect` block.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/plugin_args.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

struct PlanRequest;  // app/plan.hpp

struct RunArgs {
  std::string scenario;  // empty: the embedded default scenario
  std::string out_dir = "t9ksim-out";
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
  std::vector<PluginArg> plugins;  // --plugin, replacing the scenario's
  std::vector<std::string> sets;   // --set PATH=VALUE, in order (scenarios/format/overlay.hpp)
  const PlanRequest* plan =
      nullptr;  // `t9ksim plan run`: write the plan, run nothing (app/plan.hpp)
};

// Returns the process exit code: 0 ok, 1 simulation error / invariant / failed check, 2 bad input.
int run_command(const RunArgs& args);

// The scenario file a --set or --vary text was made from, for scenarios::point_at_sources: none
// for the embedded default (its lines are in no file the user has).
std::vector<scenarios::SourceText> sources_of(const std::string& file, const std::string& text);

// Loads a scenario as scenarios::parse_scenario does, then reads its option maps as the world
// will (sim::settings_from_scenario): an option the world refuses is a load error at the
// option's line (Scenario::option_marks) with its field path, so that no command starts runs
// the world would refuse, and `validate` reports it as it reports any other error.
scenarios::ScenarioResult load_runnable(const std::string& text, const std::string& name,
                                        const scenarios::LoadOptions& options = {});
// The same check of a loaded scenario: its errors (each at its option's line when it has one),
// none when the world accepts it.
std::vector<scenarios::Diagnostic> settings_problems(const scenarios::Scenario& sc,
                                                     const std::string& name);

// One replication of a scenario given as text into out_dir: what `run` does per replication and
// what `compare` runs per variant and replication. `file` names the text in messages and is the
// folder relative paths resolve against (empty: the current folder).
struct RunOneOptions {
  bool events = false;
  bool objects = false;  // keep finished jobs and write objects.yaml
  bool check = false;
  bool quiet = true;
  bool progress = false;  // progress bar over simulated time (only when stderr is a terminal)
  std::optional<std::uint64_t> seed;
  bool skip_bad_rows = false;
  std::vector<PluginArg> plugins;   // --plugin: controllers and the elastic policy out of process
  std::string* messages = nullptr;  // set: errors and failed checks go here instead of stderr
};
int run_one(const std::string& text, const std::string& file, std::uint64_t replication,
            const std::string& out_dir, const RunOneOptions& options);

// The options each run of `t9ksim run ARGS` gets (events, objects, check, seed, bad rows, plugins).
RunOneOptions run_one_options(const RunArgs& args);

// A command that writes a scenario and runs it (forecast, replay-check): out_dir is made whole or
// not at all (analysis/result_folder.hpp) with scenario.yaml, the run's outputs, what `extra`
// writes into the staging folder, and report.html when `report`. `inputs` may not lie inside it.
// Errors are printed as "t9ksim COMMAND: error: ..."; returns the exit code.
int run_into_folder(const std::string& command, const std::string& out_dir,
                    const std::vector<std::string>& inputs, const std::string& text,
                    const RunOneOptions& options, bool report,
                    const std::function<void(const std::string& staging)>& extra = {});

// The embedded default scenario's YAML text (scenarios/default.yaml, compiled in).
const char* default_scenario_text();

}  // namespace t9k::app
