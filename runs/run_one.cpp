#include "runs/run_one.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "analysis/outputs.hpp"
#include "analysis/progress.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/units.hpp"
#include "expect/checker.hpp"
#include "kernel/hash.hpp"
#include "kernel/kernel.hpp"
#include "model/accelerators.hpp"
#include "plugins/differential.hpp"
#include "plugins/process.hpp"
#include "runs/event_trail.hpp"
#include "runs/exit_codes.hpp"
#include "runs/loading.hpp"
#include "runs/messages.hpp"
#include "runs/run_setup.hpp"
#include "runs/version.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/serialize.hpp"
#include "sim/policy_driver.hpp"
#include "sim/world.hpp"
#include "workload/initial_state.hpp"

namespace t9k::runs {

namespace fs = std::filesystem;

namespace {

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
  // The node timeline's rows: the pools' nodes as the cluster names them (sim/cluster.cpp).
  std::vector<std::pair<std::string, std::vector<std::string>>> pools;
  for (const auto& p : sc.cluster.node_pools) {
    std::vector<std::string> names = p.node_names;
    if (names.empty())
      for (std::int32_t i = 0; i < p.count; ++i) names.push_back(fmt::format("{}-{}", p.name, i));
    if (names.empty()) continue;
    pools.emplace_back(p.name, std::move(names));
  }
  g.node_rows = analysis::Occupancy::layout(pools);
  // Prices and power by node, for the pools that have them (and pools AddNodePool adds).
  std::vector<const scenarios::NodePool*> priced;
  for (const auto& p : sc.cluster.node_pools) priced.push_back(&p);
  for (const auto& op : sc.operations)
    if (op.node_pool) priced.push_back(&*op.node_pool);
  for (const scenarios::NodePool* p : priced) {
    if (p->price_per_node_hour <= 0 && p->idle_watts <= 0 && p->busy_watts <= 0) continue;
    const analysis::NodeRates rates{p->price_per_node_hour, p->idle_watts, p->busy_watts,
                                    p->gpus_per_node};
    for (std::int32_t i = 0; i < p->count; ++i) {
      g.node_rates[i < static_cast<std::int32_t>(p->node_names.size())
                       ? p->node_names[static_cast<std::size_t>(i)]
                       : fmt::format("{}-{}", p->name, i)] = rates;
    }
  }
  for (const auto& q : sc.scheduler.queues) {
    if (!q.spec.quota) continue;
    // Every accelerator of the cluster counts as GPUs (spec.cluster.accelerators).
    g.queue_quota_gpu_milli[q.metadata.name.str()] =
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

// One run_one: the scenario loaded, the world and the recorder set up, the run, its outputs, its
// lines on the console and its check, each a step that may end it with an exit code.
class OneRun {
 public:
  OneRun(const std::string& text, const std::string& file, std::uint64_t replication,
         const std::string& out_dir, const RunOneOptions& opt)
      : text_(text), file_(file), replication_(replication), out_(out_dir), opt_(opt) {}

  int run() {
    if (auto rc = load()) return *rc;
    if (auto rc = settings()) return *rc;
    observe();
    if (auto rc = simulate()) return *rc;
    if (auto rc = write()) return *rc;
    if (!opt_.quiet) print(metrics_);
    return verdict(metrics_);
  }

 private:
  // Problems go to stderr, or to opt.messages (t9ksim test collects each case's own).
  void err(const std::string& line) const {
    if (opt_.messages) {
      *opt_.messages += line;
    } else {
      fmt::print(stderr, "{}", line);
    }
  }
  std::optional<int> load();
  // A copy of opt.preloaded when it was loaded from this text under `name`; nullopt otherwise.
  std::optional<scenarios::ScenarioResult> reuse_preloaded(const std::string& name) const;
  std::optional<int> settings();
  // The recorder, jobs.csv, events.jsonl and the expectation checker on the change feed.
  void observe();
  std::optional<int> simulate();
  std::optional<int> write();
  void print(const std::map<std::string, double>& metrics) const;
  int verdict(const std::map<std::string, double>& metrics) const;

  const std::string& text_;
  const std::string& file_;
  const std::uint64_t replication_;
  const fs::path out_;
  const RunOneOptions& opt_;
  scenarios::Scenario sc_;
  sim::WorldSettings settings_;
  std::unique_ptr<analysis::Recorder> rec_;
  std::unique_ptr<analysis::JobsCsvWriter> jobs_csv_;
  std::unique_ptr<analysis::EventLog> log_;
  std::unique_ptr<EventTrail> trail_;  // while compared with a reference
  std::unique_ptr<expect::ExpectationChecker> checker_;
  std::unique_ptr<sim::World> world_;  // released after the run unless its objects are wanted
  std::vector<std::string> world_notes_;
  std::vector<plugins::PluginStats> plugin_stats_;
  // The recorder's, taken once: for summary.json, the console and the check.
  std::map<std::string, double> metrics_;
  analysis::RunInfo info_;
  std::size_t load_warnings_ = 0;  // the first warnings of info_ are the load's
};

std::optional<scenarios::ScenarioResult> OneRun::reuse_preloaded(const std::string& name) const {
  const auto& pre = opt_.preloaded;
  // Under another name (a command's "X with --set") the scenario's own records would carry that
  // name too (an inline job's source), so only a load under the run's own name is reused.
  if (!pre || !pre->ok() || pre->name() != name || pre->text() != text_) return std::nullopt;
  return pre->copy();
}

std::optional<int> OneRun::load() {
  scenarios::LoadOptions lo;
  const bool embedded = file_.empty() || file_.front() == '<';
  if (!embedded) lo.base_dir = fs::path(file_).parent_path().string();
  lo.skip_bad_trace_rows = opt_.skip_bad_rows;
  const std::string name = embedded ? "<embedded default scenario>" : file_;
  auto loaded = reuse_preloaded(name);
  if (!loaded) loaded.emplace(scenarios::parse_scenario(text_, name, lo));
  if (!loaded->ok()) {
    for (const auto& d : loaded->diagnostics) err(scenarios::format_diagnostic(d) + "\n");
    return kExitUsage;
  }
  if (!opt_.quiet) {
    // Skipped trace rows and other warnings; errors would have stopped the load.
    for (const auto& d : loaded->diagnostics) err(scenarios::format_diagnostic(d) + "\n");
  }
  // Recorded in summary.json too, so that -q and replications keep them (without the file's
  // place: the outputs do not depend on where the scenario lies).
  for (const auto& d : loaded->diagnostics) {
    const std::string text = d.path.empty() ? d.message : d.path + ": " + d.message;
    if (d.severity == scenarios::Severity::Warning) info_.warnings.push_back(text);
    if (d.severity == scenarios::Severity::Note) info_.notes.push_back(text);
  }
  info_.notes.insert(info_.notes.end(), opt_.notes.begin(), opt_.notes.end());
  info_.warnings.insert(info_.warnings.end(), opt_.warnings.begin(), opt_.warnings.end());
  load_warnings_ = info_.warnings.size();
  sc_ = std::move(*loaded->scenario);
  if (opt_.seed) sc_.seed = *opt_.seed;
  apply_plugins(sc_, opt_.plugins);
  return std::nullopt;
}

std::optional<int> OneRun::settings() {
  try {
    settings_ = sim::settings_from_scenario(sc_);
  } catch (const sim::ScenarioError&) {
    // Commands load with load_runnable, which reports this first; a text given straight to
    // run_one is reported the same way (its lines are those of `text`).
    for (const auto& d : settings_problems(sc_, file_)) err(scenarios::format_diagnostic(d) + "\n");
    return kExitUsage;
  }
  fs::create_directories(out_);
  // A previous run's summary must not make a failed run look complete, nor its plugin logs
  // stand beside this run's.
  fs::remove(out_ / "summary.json");
  fs::remove_all(out_ / "plugins");
  settings_.plugins.log_dir = (out_ / "plugins").string();
  settings_.plugins.simulator_version = T9KSIM_VERSION;
  apply_references(settings_.plugins, sc_, opt_.references, opt_.references_where_plugins_run);
  settings_.publish_job_status = opt_.events;  // events.jsonl carries every job status change
  settings_.keep_finished_jobs = opt_.objects;
  fs::remove(out_ / "objects.yaml");  // never an earlier run's objects beside this run
  return std::nullopt;
}

void OneRun::observe() {
  rec_ = std::make_unique<analysis::Recorder>(kernel::SimTime{sc_.horizon},
                                              analysis::Recorder::choose_bucket(sc_.horizon));
  rec_->set_groups(recorder_groups(sc_));
  // jobs.csv is written as jobs leave the world, so a year's rows are never all in memory.
  jobs_csv_ = std::make_unique<analysis::JobsCsvWriter>(
      out_ / "jobs.csv", kernel::SimTime{sc_.horizon},
      analysis::JobsCsvColumns{rec_->costing().priced(), rec_->costing().powered()});
  rec_->stream_rows([this](const analysis::JobRow& r) { jobs_csv_->row(r); });
  if (opt_.events) log_ = std::make_unique<analysis::EventLog>(out_ / "events.jsonl");
  if (opt_.check && sc_.expect)
    checker_ = std::make_unique<expect::ExpectationChecker>(*sc_.expect, sc_.default_namespace);
  // Expected fields of final objects need the finished jobs kept (the run is the same).
  if (checker_ && checker_->needs_objects()) settings_.keep_finished_jobs = true;
  settings_.keep_outcomes = checker_ != nullptr;
}

std::optional<int> OneRun::simulate() {
  // Compared with a reference: the last events, for the message when they diverge.
  if (!opt_.references.empty()) trail_ = std::make_unique<EventTrail>();
  auto sink = [this](const model::TimedChange& c) {
    rec_->on_change(c);
    if (log_) log_->write(c);
    if (checker_) checker_->on_change(c);
    if (trail_) trail_->on_change(c);
  };
  try {
    world_ = std::make_unique<sim::World>(sc_, replication_, sink, settings_);
    // Built, the world reads no trace's data but through its cursors, which hold the records
    // until they have passed the last: the run's copy lets go, so that a replayed trace's records
    // are freed (docs/performance.md "A trace's records freed once replayed").
    for (auto& t : sc_.workload.traces) t.data.reset();
    if (opt_.progress && analysis::Progress::stderr_is_terminal()) {
      // After 2 s of wall time: simulated time, events/s and an ETA (docs/outputs.md "Progress").
      analysis::RunProgress bar(static_cast<double>(sc_.horizon.count()) / 1e6, stderr, true);
      world_->run([&](double f) { bar.update(f, world_->events_dispatched()); });
      bar.finish();
    } else {
      world_->run();
    }
  } catch (const sim::ScenarioError& e) {
    err(fmt::format("{}: error: {}\n", file_, e.what()));
    return kExitUsage;
  } catch (const sim::InvariantViolation& e) {
    err(fmt::format("t9ksim: {}\n", e.what()));
    return kExitError;
  } catch (const plugins::Divergence& e) {
    std::string last;
    if (trail_ && !e.job().empty()) {
      for (const auto& line : trail_->of_job(e.job(), 12)) last += "\n    " + line;
    }
    err(fmt::format("t9ksim: error: {}{}\n", e.what(),
                    last.empty() ? "" : fmt::format("\n  the job's last events:{}", last)));
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
  // What write() reads of the world, taken now: unless its objects are still wanted (objects.yaml,
  // expected fields), the world is released before the recorder's last rows, figures and files
  // are made, which then reuse its memory (kept, the backlog's heap grew past its run's peak
  // while making them: issue 49).
  info_.fingerprint = kernel::format_fingerprint(world_->fingerprint());
  info_.events = world_->events_dispatched();
  world_notes_ = world_->notes();
  plugin_stats_ = world_->plugin_stats();
  if (!opt_.objects && !checker_) world_.reset();
  rec_->finish();
  return std::nullopt;
}

std::optional<int> OneRun::write() {
  info_.version = T9KSIM_VERSION;
  info_.scenario_name = sc_.name;
  info_.scenario_hash = kernel::format_fingerprint(kernel::hash_string(text_));
  info_.seed = sc_.seed;
  info_.replication = replication_;
  info_.horizon_s = static_cast<double>(sc_.horizon.count()) / 1e6;
  info_.invariant_violations = rec_->check_invariants();
  info_.setup = run_setup(sc_);
  info_.setup.overrides = opt_.overrides;
  info_.setup.targets = opt_.targets;
  if (sc_.faults.profile != "none") {
    const bool any_fault = std::any_of(
        rec_->faults().begin(), rec_->faults().end(), [](const analysis::FaultRecord& f) {
          return f.down && f.cause != "drain" && f.cause != "removed";
        });
    if (!any_fault) {
      info_.warnings.push_back(analysis::no_fault_warning(sc_.faults.profile));
    }
  }
  for (auto& note : world_notes_) info_.warnings.push_back(std::move(note));
  for (const auto& p : plugin_stats_) {
    info_.plugins.push_back({p.name, p.role, p.protocol_version, p.calls, p.items, p.bytes_sent,
                             p.bytes_received, std::chrono::duration<double>(p.waited).count()});
  }
  try {
    if (log_) log_->commit();
    if (opt_.objects) write_objects(out_ / "objects.yaml", world_->objects());
    metrics_ = rec_->metrics();
    analysis::write_outputs(out_, *rec_, info_, metrics_, jobs_csv_.get());
    // The jobs the run started from (spec.initialState, docs/forecast.md), as the world drew them.
    if (sc_.initial_state && sc_.initial_state->data) {
      analysis::write_file_atomic(
          out_ / "initial-state.csv",
          workload::initial_state_csv(sc_, workload::initial_submissions(sc_, replication_)));
    }
  } catch (const std::exception& e) {
    err(fmt::format("t9ksim: error: {}\n", e.what()));
    return kExitError;
  }
  return std::nullopt;
}

void OneRun::print(const std::map<std::string, double>& metrics) const {
  fmt::print("scenario {} (seed {}, replication {}): {} events, fingerprint {}\n",
             sc_.name.empty() ? file_ : sc_.name, sc_.seed, replication_, info_.events,
             info_.fingerprint);
  fmt::print("jobs: {} submitted, {} succeeded, {} failed, {} rejected, {} unfinished\n",
             metrics.at("jobs_submitted"), metrics.at("jobs_succeeded"), metrics.at("jobs_failed"),
             metrics.at("jobs_rejected"), metrics.at("jobs_unfinished"));
  fmt::print("wait p50 {}, p90 {}; GPU utilisation {} allocated, {} productive\n",
             analysis::format_duration_s(metrics.at("wait_p50_s")),
             analysis::format_duration_s(metrics.at("wait_p90_s")),
             analysis::format_percent(metrics.at("utilization_allocated")),
             analysis::format_percent(metrics.at("utilization_productive")));
  if (metrics.count("cost_total")) {
    fmt::print("cost {} ({} allocated to jobs, {} idle), {} per productive GPU-hour\n",
               analysis::format_number(metrics.at("cost_total")),
               analysis::format_number(metrics.at("cost_allocated")),
               analysis::format_number(metrics.at("cost_idle")),
               analysis::format_number(metrics.at("cost_total_per_productive_gpu_hour")));
  }
  if (metrics.count("energy_total_kwh"))
    fmt::print("energy {}\n",
               analysis::format_metric("energy_total_kwh", metrics.at("energy_total_kwh")));
  print_queue_lines(metrics);
  // One draw of a random workload or fault model is one week among many (issue 47: a newcomer
  // quotes the first week's p90); said once, where the figures are.
  if (!sc_.workload.generators.empty() || sc_.faults.profile != "none") {
    fmt::print(
        "note: one replication: one draw of the scenario's arrivals{}, without an interval; "
        "-r 5 gives the spread across replications\n",
        sc_.faults.profile != "none" ? " and faults" : "");
  }
  for (const auto& p : info_.plugins) {
    fmt::print("plugin {} (protocol {}): {} calls, {} {}, {} sent, {} received, {} waiting\n",
               p.name, p.protocol_version, analysis::format_count(static_cast<double>(p.calls)),
               analysis::format_count(static_cast<double>(p.items)),
               p.role == "controller" ? "reconciles" : "decisions",
               analysis::format_bytes(static_cast<double>(p.bytes_sent)),
               analysis::format_bytes(static_cast<double>(p.bytes_received)),
               analysis::format_duration_s(p.wait_s));
  }
  // The load's warnings were printed when the scenario loaded.
  for (std::size_t i = load_warnings_; i < info_.warnings.size(); ++i)
    fmt::print("warning: {}\n", info_.warnings[i]);
}

int OneRun::verdict(const std::map<std::string, double>& metrics) const {
  if (!info_.invariant_violations.empty()) {
    for (const auto& v : info_.invariant_violations)
      err(fmt::format("t9ksim: invariant violated: {}\n", v));
    return kExitError;
  }
  if (!opt_.check) return kExitOk;
  if (!sc_.expect) {
    err(fmt::format("{}: --check given but the scenario has no expect block\n", file_));
    return kExitUsage;
  }
  const auto diff = checker_->check(
      world_->outcomes(), metrics,
      checker_->needs_objects() ? world_->objects() : std::vector<scenarios::Object>{});
  if (!diff.empty()) {
    err(fmt::format("check failed (replication {}): {} expectation(s) not met\n", replication_,
                    diff.size()));
    for (const auto& d : diff) err(fmt::format("  - {}\n", d));
    return kExitError;
  }
  if (!opt_.quiet) fmt::print("check: all expectations met\n");
  return kExitOk;
}

}  // namespace

RunOneOptions RunOneOptions::for_unit(const std::string& unit) const {
  RunOneOptions out = *this;
  out.references_where_plugins_run = std::any_of(plugins.begin(), plugins.end(),
                                                 [](const auto& p) { return !p.variants.empty(); });
  std::erase_if(out.plugins, [&](const PluginArg& p) {
    return !p.variants.empty() &&
           std::find(p.variants.begin(), p.variants.end(), unit) == p.variants.end();
  });
  return out;
}

int run_one(const std::string& text, const std::string& file, std::uint64_t replication,
            const std::string& out_dir, const RunOneOptions& opt) {
  return OneRun(text, file, replication, out_dir, opt).run();
}

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

}  // namespace t9k::runs
