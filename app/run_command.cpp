#include "app/run_command.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
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
#include "app/command_support.hpp"
#include "app/exit_codes.hpp"
#include "app/expectations.hpp"
#include "app/load_checked.hpp"
#include "app/plan.hpp"
#include "app/version.hpp"
#include "app/work.hpp"
#include "kernel/hash.hpp"
#include "kernel/kernel.hpp"
#include "model/accelerators.hpp"
#include "plugins/process.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "sim/policy_driver.hpp"
#include "sim/world.hpp"
#include "workload/initial_state.hpp"

namespace t9k::app {

namespace {

// A scenario that does not load: every diagnostic on stderr, the warnings with the errors.
void print_to_stderr(const std::vector<scenarios::Diagnostic>& ds) {
  for (const auto& d : ds) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
}

// The final objects as `kubectl get -o yaml` shows a list (JSON is YAML), written to a temporary
// name and renamed.
void write_objects(const std::filesystem::path& file,
                   const std::vector<scenarios::Object>& objects) {
  std::string text = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [";
  for (std::size_t i = 0; i < objects.size(); ++i) {
    text += i ? ",\n" : "\n";
    std::string doc = scenarios::to_json(objects[i]);
    while (!doc.empty() && doc.back() == '\n') doc.pop_back();
    std::istringstream lines(doc);
    bool first = true;
    for (std::string line; std::getline(lines, line); first = false)
      text += (first ? "    " : "\n    ") + line;
  }
  text += "\n  ]\n}\n";
  analysis::write_file_atomic(file, text);
}

// Generator classes and queue quotas for the recorder's grouped metrics. The quota is the one the
// queue starts with (a setQueue operation does not change the denominator of quota_share_used).
analysis::RecorderGroups recorder_groups(const scenarios::Scenario& sc) {
  analysis::RecorderGroups g;
  for (const auto& gen : sc.workload.generators) {
    for (const auto& c : gen.classes) g.class_prefixes.push_back(c.prefix);
  }
  for (const auto& q : sc.scheduler.queues) {
    if (!q.spec.quota) continue;
    // Every accelerator of the cluster counts as GPUs (spec.cluster.accelerators).
    g.queue_quota_gpu_milli[q.metadata.name] =
        model::Accelerators(sc.cluster.accelerators).milli_of(*q.spec.quota);
  }
  return g;
}

// Every queue's own line: the cluster's percentiles hide a starving queue.
void print_queue_lines(const std::map<std::string, double>& m) {
  const std::string head = std::string(analysis::kGroupQueue) + "/";
  for (const auto& [key, value] : m) {
    constexpr std::string_view kTail = "/jobs_submitted";
    if (!key.starts_with(head) || !key.ends_with(kTail)) continue;
    const std::string q = key.substr(head.size(), key.size() - head.size() - kTail.size());
    const std::string p = head + q + "/";
    const auto at = [&](const char* name) { return m.at(p + name); };
    const auto quota = m.find(p + "quota_share_used");
    fmt::print("queue {}: {} jobs ({} never started), wait p50 {}, p90 {}, p99 {}{}\n", q,
               analysis::format_count(value), analysis::format_count(at("jobs_never_started")),
               analysis::format_duration_s(at("wait_p50_s")),
               analysis::format_duration_s(at("wait_p90_s")),
               analysis::format_duration_s(at("wait_p99_s")),
               quota == m.end()
                   ? std::string()
                   : "; " + analysis::format_percent(quota->second) + " of quota used");
  }
}

}  // namespace

int run_one(const std::string& text, const std::string& file, std::uint64_t replication,
            const std::string& out_dir, const RunOneOptions& opt) {
  // Problems go to stderr, or to opt.messages (t9ksim test collects each case's own).
  const auto err = [&](const std::string& line) {
    if (opt.messages) {
      *opt.messages += line;
    } else {
      fmt::print(stderr, "{}", line);
    }
  };
  scenarios::LoadOptions lo;
  const bool embedded = file.empty() || file.front() == '<';
  if (!embedded) lo.base_dir = std::filesystem::path(file).parent_path().string();
  lo.skip_bad_trace_rows = opt.skip_bad_rows;
  auto loaded =
      scenarios::parse_scenario(text, embedded ? "<embedded default scenario>" : file, lo);
  if (!loaded.ok()) {
    for (const auto& d : loaded.diagnostics) err(scenarios::format_diagnostic(d) + "\n");
    return kExitUsage;
  }
  if (!opt.quiet) {
    // Skipped trace rows and other warnings; errors would have stopped the load.
    for (const auto& d : loaded.diagnostics) err(scenarios::format_diagnostic(d) + "\n");
  }
  scenarios::Scenario sc = std::move(*loaded.scenario);
  if (opt.seed) sc.seed = *opt.seed;
  apply_plugins(sc, opt.plugins);

  sim::WorldSettings settings;
  try {
    settings = sim::settings_from_scenario(sc);
  } catch (const sim::ScenarioError&) {
    // Commands load with load_runnable, which reports this first; a text given straight to
    // run_one is reported the same way (its lines are those of `text`).
    for (const auto& d : settings_problems(sc, file)) err(scenarios::format_diagnostic(d) + "\n");
    return kExitUsage;
  }

  const std::filesystem::path out(out_dir);
  std::filesystem::create_directories(out);
  // A previous run's summary must not make a failed run look complete, nor its plugin logs
  // stand beside this run's.
  std::filesystem::remove(out / "summary.json");
  std::filesystem::remove_all(out / "plugins");
  settings.plugins.log_dir = (out / "plugins").string();
  settings.plugins.simulator_version = T9KSIM_VERSION;
  settings.publish_job_status = opt.events;  // events.jsonl carries every job status change
  settings.keep_finished_jobs = opt.objects;
  std::filesystem::remove(out / "objects.yaml");  // never an earlier run's objects beside this run

  analysis::Recorder rec(kernel::SimTime{sc.horizon},
                         analysis::Recorder::choose_bucket(sc.horizon));
  rec.set_groups(recorder_groups(sc));
  // jobs.csv is written as jobs leave the world, so a year's rows are never all in memory.
  analysis::JobsCsvWriter jobs_csv(out / "jobs.csv", kernel::SimTime{sc.horizon});
  rec.stream_rows([&](const analysis::JobRow& r) { jobs_csv.row(r); });
  std::unique_ptr<analysis::EventLog> log;
  if (opt.events) log = std::make_unique<analysis::EventLog>(out / "events.jsonl");
  std::unique_ptr<ExpectationChecker> checker;
  if (opt.check && sc.expect)
    checker = std::make_unique<ExpectationChecker>(*sc.expect, sc.default_namespace);
  // Expected fields of final objects need the finished jobs kept (the run is the same).
  if (checker && checker->needs_objects()) settings.keep_finished_jobs = true;
  settings.keep_outcomes = checker != nullptr;
  auto sink = [&](const model::TimedChange& c) {
    rec.on_change(c);
    if (log) log->write(c);
    if (checker) checker->on_change(c);
  };

  std::unique_ptr<sim::World> world;
  try {
    world = std::make_unique<sim::World>(sc, replication, sink, settings);
    if (opt.progress && analysis::Progress::stderr_is_terminal()) {
      // After 2 s of wall time: simulated time, events/s and an ETA (docs/outputs.md "Progress").
      analysis::RunProgress bar(static_cast<double>(sc.horizon.count()) / 1e6, stderr, true);
      world->run([&](double f) { bar.update(f, world->events_dispatched()); });
      bar.finish();
    } else {
      world->run();
    }
  } catch (const sim::ScenarioError& e) {
    err(fmt::format("{}: error: {}\n", file, e.what()));
    return kExitUsage;
  } catch (const sim::InvariantViolation& e) {
    err(fmt::format("t9ksim: {}\n", e.what()));
    return kExitError;
  } catch (const plugins::PluginError& e) {
    err(fmt::format("t9ksim: error: {}\n", e.what()));
    return kExitError;
  } catch (const sim::PolicyError& e) {
    err(fmt::format("t9ksim: error: {}\n", e.what()));
    return kExitError;
  } catch (const std::exception& e) {
    // events.jsonl could not be written (full disk, file-size limit), or memory ran out: run_one
    // runs on worker threads, where an escaping exception would end the process.
    err(fmt::format("t9ksim: error: {}\n", e.what()));
    return kExitError;
  }
  rec.finish();

  analysis::RunInfo info;
  info.version = T9KSIM_VERSION;
  info.scenario_name = sc.name;
  info.scenario_hash = kernel::format_fingerprint(kernel::hash_string(text));
  info.seed = sc.seed;
  info.replication = replication;
  info.fingerprint = kernel::format_fingerprint(world->fingerprint());
  info.events = world->events_dispatched();
  info.horizon_s = static_cast<double>(sc.horizon.count()) / 1e6;
  info.invariant_violations = rec.check_invariants();
  if (sc.faults.profile != "none") {
    const bool any_fault =
        std::any_of(rec.faults().begin(), rec.faults().end(), [](const analysis::FaultRecord& f) {
          return f.down && f.cause != "drain" && f.cause != "removed";
        });
    if (!any_fault) {
      info.warnings.push_back(
          fmt::format("the fault profile {} is set but no fault happened in this run: its fault "
                      "costs are 0 by chance; use "
                      "more replications or a longer horizon to see them",
                      sc.faults.profile));
    }
  }
  for (auto& note : world->notes()) info.warnings.push_back(std::move(note));
  try {
    if (log) log->commit();
    if (opt.objects) write_objects(out / "objects.yaml", world->objects());
    analysis::write_outputs(out, rec, info, &jobs_csv);
    // The jobs the run started from (spec.initialState, docs/forecast.md), as the world drew them.
    if (sc.initial_state && sc.initial_state->data) {
      analysis::write_file_atomic(
          out / "initial-state.csv",
          workload::initial_state_csv(sc, workload::initial_submissions(sc, replication)));
    }
  } catch (const std::exception& e) {
    err(fmt::format("t9ksim: error: {}\n", e.what()));
    return kExitError;
  }

  const auto metrics = rec.metrics();
  if (!opt.quiet) {
    fmt::print("scenario {} (seed {}, replication {}): {} events, fingerprint {}\n",
               sc.name.empty() ? file : sc.name, sc.seed, replication, info.events,
               info.fingerprint);
    fmt::print("jobs: {} submitted, {} succeeded, {} failed, {} rejected, {} unfinished\n",
               metrics.at("jobs_submitted"), metrics.at("jobs_succeeded"),
               metrics.at("jobs_failed"), metrics.at("jobs_rejected"),
               metrics.at("jobs_unfinished"));
    fmt::print("wait p50 {}, p90 {}; GPU utilisation {} allocated, {} productive\n",
               analysis::format_duration_s(metrics.at("wait_p50_s")),
               analysis::format_duration_s(metrics.at("wait_p90_s")),
               analysis::format_percent(metrics.at("utilization_allocated")),
               analysis::format_percent(metrics.at("utilization_productive")));
    print_queue_lines(metrics);
    for (const auto& w : info.warnings) fmt::print("warning: {}\n", w);
  }
  if (!info.invariant_violations.empty()) {
    for (const auto& v : info.invariant_violations)
      err(fmt::format("t9ksim: invariant violated: {}\n", v));
    return kExitError;
  }
  if (opt.check) {
    if (!sc.expect) {
      err(fmt::format("{}: --check given but the scenario has no expect block\n", file));
      return kExitUsage;
    }
    const auto diff = checker->check(
        world->outcomes(), metrics,
        checker->needs_objects() ? world->objects() : std::vector<scenarios::Object>{});
    if (!diff.empty()) {
      err(fmt::format("check failed (replication {}): {} expectation(s) not met\n", replication,
                      diff.size()));
      for (const auto& d : diff) err(fmt::format("  - {}\n", d));
      return kExitError;
    }
    if (!opt.quiet) fmt::print("check: all expectations met\n");
  }
  return kExitOk;
}

std::vector<scenarios::SourceText> sources_of(const std::string& file, const std::string& text) {
  if (file.empty() || file.front() == '<') return {};
  return {{file, text}};
}

std::vector<scenarios::Diagnostic> settings_problems(const scenarios::Scenario& sc,
                                                     const std::string& name) {
  try {
    (void)sim::settings_from_scenario(sc);
    return {};
  } catch (const sim::ScenarioError& e) {
    const auto at = [&](const std::string& path, const std::string& message) {
      scenarios::Diagnostic d;
      d.file = name;
      d.path = path;
      d.message = message;
      if (const auto it = sc.option_marks.find(path); it != sc.option_marks.end()) {
        d.line = it->second.first;
        d.column = it->second.second;
      }
      return d;
    };
    if (e.problems().empty()) return {at("", e.what())};
    std::vector<scenarios::Diagnostic> out;
    for (const auto& p : e.problems()) out.push_back(at(p.path, p.message));
    return out;
  }
}

scenarios::ScenarioResult load_runnable(const std::string& text, const std::string& name,
                                        const scenarios::LoadOptions& options) {
  return load_checked(text, name, options, settings_problems);
}

namespace fs = std::filesystem;

int run_into_folder(const std::string& command, const std::string& out_dir,
                    const std::vector<std::string>& inputs, const std::string& text,
                    const RunOneOptions& opt, bool report,
                    const std::function<void(const std::string& staging)>& extra) {
  return guarded(command, [&]() -> int {
    std::vector<fs::path> input_paths(inputs.begin(), inputs.end());
    analysis::ResultFolder folder(out_dir, {command, analysis::kSummaryMarker, input_paths});
    const fs::path out = folder.path();
    analysis::write_file_atomic(out / "scenario.yaml", text);
    // Messages name the scenario where it will be.
    const int rc =
        run_one(text, (fs::path(out_dir) / "scenario.yaml").string(), 0, out.string(), opt);
    if (rc != kExitOk) return rc;
    if (extra) extra(out.string());
    if (report) analysis::write_report(out);
    folder.commit();
    return kExitOk;
  });
}

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
  const auto loaded = load_runnable(text, args.sets.empty() ? file : file + " with --set", lo);
  if (!loaded.ok()) {
    print_to_stderr(args.sets.empty() ? loaded.diagnostics
                                      : scenarios::point_at_sources(loaded.diagnostics, text,
                                                                    sources_of(file, original)));
    return kExitUsage;
  }
  const std::uint64_t reps =
      args.replications ? *args.replications
                        : static_cast<std::uint64_t>(std::max(1, loaded.scenario->replications));
  if (reps == 0) {
    fmt::print(stderr, "t9ksim: error: --replications must be at least 1\n");
    return kExitUsage;
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
  opt.quiet = args.quiet || reps > 1;
  opt.progress = !args.quiet && reps == 1;
  const RunOne runner = [opt](const std::string& t, const std::string& f, std::uint64_t r,
                              const std::string& dir) { return run_one(t, f, r, dir, opt); };
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
  return opt;
}

}  // namespace t9k::app
