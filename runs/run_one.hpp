// One replication of a scenario, given as text, simulated into a results folder: what `run` does
// per replication and what `compare`, `sweep`, `size`, `test` and a plan's shards run per unit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runs/plugin_args.hpp"

namespace t9k::runs {

struct PreloadedScenario;  // runs/loading.hpp

struct RunOneOptions {
  bool events = false;
  bool objects = false;  // keep finished jobs and write objects.yaml
  bool check = false;    // check the scenario's expect block (expect/checker.hpp)
  bool quiet = true;
  bool progress = false;  // progress bar over simulated time (only when stderr is a terminal)
  std::optional<std::uint64_t> seed;
  bool skip_bad_rows = false;
  std::vector<PluginArg> plugins;  // --plugin: controllers and the elastic policy out of process
  std::vector<ReferenceArg> references;  // --reference: what the plugins are compared with
  // Set by for_unit when plugins run in some units only: a reference then applies where a plugin
  // runs (elsewhere it is an error).
  bool references_where_plugins_run = false;
  std::string* messages = nullptr;  // set: errors and failed checks go here instead of stderr
  // The command's --set assignments, for summary.json "setup" (the report's first screen says
  // what was changed from the scenario file).
  std::vector<std::string> overrides;
  // The command's --target texts, for summary.json "setup": the report checks them.
  std::vector<std::string> targets;
  // What the command assumed before the scenario (forecast: the fit), for summary.json "notes",
  // and where its evidence is thin, for summary.json "warnings".
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
  // The scenario as the command loaded it before starting its runs: a run of the same text takes
  // a copy instead of parsing it again (a small run's start-up is mostly parsing YAML,
  // docs/performance.md). Null, or another text: the run parses its own.
  std::shared_ptr<const PreloadedScenario> preloaded;
  // These options for one unit of a command (compare: a variant): the plugins given for it.
  RunOneOptions for_unit(const std::string& unit) const;
};

// Simulates `text` at `replication` into out_dir (created; an earlier run's summary, objects and
// plugin logs removed first) and writes its outputs (docs/outputs.md). `file` names the text in
// messages and is the folder relative paths resolve against (empty or "<...>": the current
// folder). Returns the exit code: 0 ok, 1 a simulation error, an invariant or a failed check, 2
// a scenario that does not load or run. Called from several threads at once.
int run_one(const std::string& text, const std::string& file, std::uint64_t replication,
            const std::string& out_dir, const RunOneOptions& options);

// run_one as the batch runners take it (runs/batch.hpp, runs/work.hpp): options bound.
// `unit` is the unit's label (compare: the variant; plugins may be given for some variants only).
using RunOne = std::function<int(const std::string& scenario_text, const std::string& scenario_file,
                                 std::uint64_t replication, const std::string& out_dir,
                                 const std::string& unit)>;

// A command that writes a scenario and runs it (forecast, replay-check): out_dir is made whole or
// not at all (analysis/result_folder.hpp) with scenario.yaml, the run's outputs, what `extra`
// writes into the staging folder, and report.html when `report`. `inputs` may not lie inside it.
// Errors are printed as "t9ksim COMMAND: error: ..."; returns the exit code.
int run_into_folder(const std::string& command, const std::string& out_dir,
                    const std::vector<std::string>& inputs, const std::string& text,
                    const RunOneOptions& options, bool report,
                    const std::function<void(const std::string& staging)>& extra = {});

}  // namespace t9k::runs
