#include "app/run_command.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "analysis/aggregate.hpp"
#include "analysis/outputs.hpp"
#include "analysis/progress.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/units.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/target_groups.hpp"
#include "expect/checker.hpp"
#include "kernel/hash.hpp"
#include "kernel/kernel.hpp"
#include "model/accelerators.hpp"
#include "plugins/process.hpp"
#include "runs/exit_codes.hpp"
#include "runs/loading.hpp"
#include "runs/messages.hpp"
#include "runs/plan.hpp"
#include "runs/version.hpp"
#include "runs/work.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "sim/policy_driver.hpp"
#include "sim/world.hpp"
#include "workload/initial_state.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

// Where `run` writes without --out: one folder per scenario under results/, the embedded default
// scenario's being results/default (the README's main job).
std::string default_out_dir(const std::string& scenario) {
  if (scenario.empty()) return "results/default";
  const std::string stem = std::filesystem::path(scenario).stem().string();
  return "results/" + (stem.empty() ? std::string("run") : stem);
}

}  // namespace

int run_command(const RunArgs& args) {
  std::string text;
  std::string file;
  if (args.scenario.empty()) {
    text = default_scenario_text();
    file = "<embedded default scenario>";
  } else {
    std::vector<scenarios::Diagnostic> errors;
    if (!scenarios::read_input_file(args.scenario, text, errors)) {
      print_to_stderr(errors);
      return kExitUsage;
    }
    file = args.scenario;
  }
  const std::string original = text;  // for pointing errors back at the file
  if (!args.sets.empty()) {
    std::vector<scenarios::Diagnostic> errors;
    text = scenarios::apply_sets(text, args.sets, errors);
    if (!errors.empty()) {
      print_to_stderr(errors);
      return kExitUsage;
    }
  }
  // The changed scenario is loaded here too, so that a bad value is reported before anything runs,
  // and so are the files it names: the results folder may not replace them.
  scenarios::LoadOptions lo;
  if (!args.scenario.empty())
    lo.base_dir = std::filesystem::path(args.scenario).parent_path().string();
  lo.skip_bad_trace_rows = args.skip_bad_rows;
  lo.max_jobs = args.max_jobs;
  const std::string loaded_as = args.sets.empty() ? file : file + " with --set";
  auto loaded = load_runnable(text, loaded_as, lo);
  if (!loaded.ok()) {
    print_to_stderr(args.sets.empty() ? loaded.diagnostics
                                      : scenarios::point_at_sources(loaded.diagnostics, text,
                                                                    sources_of(file, original)));
    return kExitUsage;
  }
  if (!targets_fit("run", args.targets, *loaded.scenario)) return kExitUsage;
  const std::uint64_t reps =
      args.replications ? *args.replications
                        : static_cast<std::uint64_t>(std::max(1, loaded.scenario->replications));
  if (reps == 0) {
    fmt::print(stderr, "t9ksim: error: --replications must be at least 1\n");
    return kExitUsage;
  }
  // Each replication loads quietly: the warnings are said once here (and kept in summary.json).
  if (reps > 1 && !args.quiet && !loaded.diagnostics.empty()) {
    print_to_stderr(args.sets.empty() ? loaded.diagnostics
                                      : scenarios::point_at_sources(loaded.diagnostics, text,
                                                                    sources_of(file, original)));
  }
  Work w;
  w.command = "run";
  w.scenario_file = file;
  w.texts.push_back(text);
  w.inputs.assign(loaded.files.begin(), loaded.files.end());
  w.inputs.emplace_back(file);
  w.report = args.report;
  if (reps == 1) {
    w.finish = Finish::Single;
    w.units.push_back({"run", 0, args.first_replication, ""});
  } else {
    // Replications in parallel threads; each is independent (its own world and streams), so the
    // results are the same as running them one after another.
    w.finish = Finish::Replications;
    w.groups.emplace_back();
    for (std::uint64_t i = 0; i < reps; ++i) {
      w.groups.front().units.push_back(w.units.size());
      w.units.push_back({"run", 0, args.first_replication + i,
                         fmt::format("rep-{}", args.first_replication + i)});
    }
  }
  RunOneOptions opt = run_one_options(args);
  if (args.plan) return write_plan(w, opt, *args.plan, args.quiet);
  opt.preloaded =
      std::make_shared<const PreloadedScenario>(text, loaded_as, std::move(loaded), w.units.size());
  opt.quiet = args.quiet || reps > 1;
  opt.progress = !args.quiet && reps == 1;
  const RunOne runner = [opt](const std::string& t, const std::string& f, std::uint64_t r,
                              const std::string& dir,
                              const std::string&) { return run_one(t, f, r, dir, opt); };
  const std::string shown = std::filesystem::absolute(args.out_dir).lexically_normal().string();
  const auto finished = execute_work(w, args.out_dir, runner, args.threads, args.quiet);
  if (!args.quiet) print_finished(w, finished, shown);
  return finished.rc;
}

RunOneOptions run_one_options(const RunArgs& args) {
  RunOneOptions opt;
  opt.events = args.events;
  opt.objects = args.objects;
  opt.check = args.check;
  opt.seed = args.seed;
  opt.skip_bad_rows = args.skip_bad_rows;
  opt.plugins = args.plugins;
  opt.references = args.references;
  opt.overrides = args.sets;
  opt.targets = args.targets;
  return opt;
}

void add_run_command(Commands& c) {
  auto args = std::make_shared<RunArgs>();
  auto plugins = std::make_shared<PluginOptions>();
  auto* run =
      c.add("run",
            "Simulate a scenario (the embedded default scenario when no file is given) and write "
            "jobs.csv, timeseries.csv, faults.csv, summary.json and report.html");
  run->add_option("SCENARIO", args->scenario, "Scenario file (YAML or JSON)");
  run->add_option("-o,--out", args->out_dir,
                  "Results directory (default: results/<scenario file name without extension>; "
                  "results/default for the embedded scenario)");
  run->add_option("--seed", args->seed, "Override the scenario's seed")->transform(seed_number());
  run->add_option("-r,--replications", args->replications,
                  "Independent replications (default: the scenario's spec.replications); with more "
                  "than one, each goes to OUT/rep-<i>/ and OUT/summary.json has 95 % intervals")
      ->transform(replications_number());
  run->add_option("--first-replication", args->first_replication, "Number of the first replication")
      ->capture_default_str()
      ->transform(replication_number());
  run->add_option("-j,--threads", args->threads, "Threads for replications (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  run->add_flag("--events", args->events,
                "Also write events.jsonl (every object transition and job status)");
  run->add_flag("--objects", args->objects,
                "Also write objects.yaml: the final Jobs (full status), PodGroups and Queues as a "
                "kind: List");
  run->add_flag(
      "--check", args->check,
      "Check the scenario's expect block; exit 1 with a readable diff when it is not met");
  run->add_flag("!--no-report", args->report, "Do not write report.html");
  add_max_jobs_option(run, args->max_jobs);
  run->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  run->add_flag("--skip-bad-rows", args->skip_bad_rows,
                "Skip malformed trace rows instead of refusing to start (reports how many)");
  add_set_option(run, args->sets);
  run->add_option("--target", args->targets,
                  "[GROUP=VALUE] METRIC OP THRESHOLD [in P% of runs], as for `t9ksim size`: "
                  "checked over the replications, in the console and the report; repeatable")
      ->allow_extra_args(false);
  plugins->add_to(run);
  c.on(run, [&c, args, plugins] {
    runs::RunOneOptions parsed;
    if (const auto err = plugins->parse(parsed); !err.empty()) {
      fmt::print(stderr, "t9ksim run: {}\n", err);
      return runs::kExitUsage;
    }
    args->plugins = std::move(parsed.plugins);
    args->references = std::move(parsed.references);
    if (args->out_dir.empty()) args->out_dir = default_out_dir(args->scenario);
    if (auto& plan = c.plan_request()) {
      plan->dir = args->out_dir;
      plan->plugin_specs = plugins->specs;
      plan->reference_specs = plugins->references;
      plan->plugin_timeout = plugins->timeout;
      args->plan = &*plan;
    }
    return run_command(*args);
  });
}

}  // namespace t9k::app
