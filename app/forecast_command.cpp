#include "app/forecast_command.hpp"

#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "analysis/job_forecast.hpp"
#include "analysis/outputs.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"
#include "app/forecast_scenario.hpp"
#include "app/options.hpp"
#include "app/run_command.hpp"
#include "runs/exit_codes.hpp"
#include "runs/messages.hpp"
#include "runs/work.hpp"
#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "scenarios/format/traces.hpp"
#include "workload/fit.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace fs = std::filesystem;

namespace {

// The export read as a k8s-export trace: its finished jobs, its unfinished ones, its cluster.
// Errors printed; nullptr then.
std::shared_ptr<const scenarios::TraceData> read_export(const std::string& command,
                                                        const std::string& path, std::string& abs) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    fmt::print(stderr, "t9ksim {}: {}: not a file\n", command, path);
    return nullptr;
  }
  abs = fs::absolute(path).lexically_normal().string();
  scenarios::TraceEntry e;
  e.name = "export";
  e.format = scenarios::TraceFormat::K8sExport;
  e.path = abs;
  std::vector<scenarios::Diagnostic> diags;
  auto data = scenarios::load_trace(e, false, "<" + command + ">", "export", diags);
  if (!data || scenarios::has_errors(diags)) {
    print_diagnostics(diags, true);
    return nullptr;
  }
  return data;
}

// --at: the export's time on its clock, or the export's latest timestamp.
std::optional<std::int64_t> time_zero(const std::string& command, const std::string& at,
                                      const scenarios::TraceData& d) {
  if (at.empty()) return d.latest_us;
  const auto us = scenarios::parse_trace_time(at);
  if (!us) {
    fmt::print(stderr,
               "t9ksim {}: --at: found \"{}\"; allowed: RFC 3339 (2024-05-02T09:00:00Z), "
               "\"YYYY-MM-DD HH:MM:SS\" "
               "(UTC) or Unix seconds\n",
               command, at);
  }
  return us;
}

}  // namespace

int fit_command(const FitArgs& a) {
  std::string abs;
  const auto data = read_export("fit", a.export_path, abs);
  if (!data) return kExitUsage;
  const auto at = time_zero("fit", a.at, *data);
  if (!at) return kExitUsage;
  workload::FitResult fit;
  try {
    fit = workload::fit_generator(*data, *at, "arrivals", 0);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "t9ksim fit: {}: {}\n", a.export_path, e.what());
    return kExitUsage;
  }
  std::string text =
      fmt::format("# t9ksim fit {}: new jobs like the export's, time zero {} (docs/forecast.md).\n",
                  fs::path(a.export_path).filename().string(), scenarios::format_trace_time(*at));
  for (const auto& n : fit.notes) text += "# " + n + "\n";
  for (const auto& n : fit.class_notes) text += "# " + n + "\n";
  for (const auto& c : fit.cautions) text += "# caution: " + c + "\n";
  text += "# Put the entry under spec.workload.generators.\ngenerators:\n" + fit.yaml;
  if (a.out.empty()) {
    fmt::print("{}", text);
    return kExitOk;
  }
  try {
    analysis::write_file_atomic(a.out, text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim fit: error: {}\n", e.what());
    return kExitError;
  }
  if (!a.quiet) {
    for (const auto& n : fit.notes) fmt::print("note: {}\n", n);
    for (const auto& n : fit.class_notes) fmt::print("note: {}\n", n);
    for (const auto& c : fit.cautions) fmt::print("warning: {}\n", c);
    fmt::print("generator: {}\n", a.out);
  }
  return kExitOk;
}

namespace {

// The --job answer from each run's jobs.csv, written as job-forecast.csv into the staging folder.
void write_job_forecast(const runs::Work& w, const ForecastJob& job, std::int64_t at_us,
                        double horizon_s, const fs::path& staging,
                        analysis::JobForecast& forecast) {
  forecast.job = job.key;
  forecast.kind = job.kind;
  forecast.queue = job.queue;
  forecast.gpus = job.gpus;
  forecast.time_zero_unix_s = at_us / 1000000;
  forecast.horizon_s = horizon_s;
  for (const auto& u : w.units) {
    forecast.rows.push_back(analysis::job_forecast_row(
        u.dir.empty() ? staging : staging / fs::path(u.dir), job.key, u.replication));
  }
  analysis::write_file_atomic(staging / "job-forecast.csv", analysis::job_forecast_csv(forecast));
}

}  // namespace

int forecast_command(const ForecastArgs& a) {
  std::string abs;
  const auto data = read_export("forecast", a.export_path, abs);
  if (!data) return kExitUsage;
  scenarios::ExportCluster cluster;
  {
    std::vector<scenarios::Diagnostic> ignored;  // the scenario's load reports them
    if (auto c = scenarios::load_export_cluster(abs, ignored)) cluster = std::move(*c);
  }
  if (cluster.pools.empty() && a.nodes <= 0) {
    fmt::print(stderr,
               "t9ksim forecast: {}: the export has no Node objects; export them too (kubectl get "
               "genericjobs,pytorchtrainingjobs,deepspeedjobs,queues,podgroups,nodes,pods -A -o "
               "yaml) or give the cluster with --nodes N --gpus-per-node G\n",
               a.export_path);
    return kExitUsage;
  }
  if (!cluster.pools.empty() && a.nodes > 0) {
    fmt::print(stderr,
               "t9ksim forecast: --nodes: the export has Node objects, which the forecast starts "
               "from; --nodes is for an export without them (change the cluster afterwards with "
               "t9ksim run DIR/scenario.yaml --set ...)\n");
    return kExitUsage;
  }
  if (a.gpus_per_node && a.nodes <= 0) {
    fmt::print(stderr,
               "t9ksim forecast: --gpus-per-node: only with --nodes (an export without Node "
               "objects)\n");
    return kExitUsage;
  }
  const auto at = time_zero("forecast", a.at, *data);
  if (!at) return kExitUsage;
  std::optional<ForecastJob> job;
  if (!a.job.empty()) {
    job = read_forecast_job(a.job, *data, cluster);
    if (!job) return kExitUsage;
  } else if (!a.job_run_time.empty()) {
    fmt::print(stderr, "t9ksim forecast: --job-run-time: only with --job\n");
    return kExitUsage;
  }
  workload::FitResult fit;
  if (a.arrivals) {
    try {
      fit = workload::fit_generator(*data, *at, "arrivals", 4);
    } catch (const std::runtime_error& e) {
      fmt::print(stderr,
                 "t9ksim forecast: {}: {} (--no-arrivals forecasts the present jobs alone)\n",
                 a.export_path, e.what());
      return kExitUsage;
    }
  }
  // Several replications by default: one week is one draw of the arrivals (issue: never a single
  // unrepresentative week); a job's p90 needs more.
  const std::uint64_t reps = a.replications.value_or(job ? 20 : 5);
  if (reps == 0) {
    fmt::print(stderr, "t9ksim forecast: --replications: found 0; allowed: 1 or more\n");
    return kExitUsage;
  }
  const auto sc = forecast_scenario(a, *data, cluster, abs, *at, a.arrivals ? &fit : nullptr,
                                    job ? &*job : nullptr, reps);
  if (!sc) return kExitUsage;
  // Checked before anything is written: a bad option is reported as the option. Messages name
  // the scenario where it will be.
  const std::string file = (fs::path(a.out_dir) / "scenario.yaml").string();
  const auto probe = scenarios::parse_scenario(sc->text, file);
  if (!probe.ok()) {
    print_forecast_diagnostics(probe.diagnostics, file, a.quiet);
    return kExitUsage;
  }
  if (!a.quiet) {
    print_forecast_diagnostics(probe.diagnostics, file, false);
    for (const auto& n : sc->notes) fmt::print("note: {}\n", n);
    for (const auto& c : sc->cautions) fmt::print("warning: {}\n", c);
  }
  runs::Work w;
  w.command = "forecast";
  w.scenario_file = file;
  w.texts.push_back(sc->text);
  w.files.emplace_back("scenario.yaml", sc->text);
  w.inputs.emplace_back(abs);
  if (job) w.inputs.emplace_back(job->path);
  w.report = a.report;
  if (reps == 1) {
    w.finish = runs::Finish::Single;
    w.units.push_back({"run", 0, 0, ""});
  } else {
    w.finish = runs::Finish::Replications;
    w.groups.emplace_back();
    for (std::uint64_t i = 0; i < reps; ++i) {
      w.groups.front().units.push_back(w.units.size());
      w.units.push_back({"forecast", 0, i, fmt::format("rep-{}", i)});
    }
  }
  RunOneOptions opt;
  opt.quiet = true;  // the load's notes and warnings were said above, once
  opt.progress = !a.quiet && reps == 1;
  opt.notes = sc->notes;
  opt.warnings = sc->cautions;
  const runs::RunOne runner = [opt](const std::string& t, const std::string& f, std::uint64_t r,
                                    const std::string& dir,
                                    const std::string&) { return run_one(t, f, r, dir, opt); };
  analysis::JobForecast answer;
  runs::ExtraFiles extra;
  if (job) {
    const double horizon_s = static_cast<double>(probe.scenario->horizon.count()) / 1e6;
    extra = [&, horizon_s](const fs::path& staging) {
      write_job_forecast(w, *job, *at, horizon_s, staging, answer);
    };
  }
  runs::Finished finished;
  const int rc = guarded("forecast", [&] {
    finished = execute_work(w, a.out_dir, runner, a.threads, a.quiet, extra);
    return finished.rc;
  });
  if (!a.quiet && finished.committed)
    print_finished(w, finished, fs::absolute(a.out_dir).lexically_normal().string());
  if (rc != kExitOk) return rc;
  if (!a.quiet) {
    if (job) {
      const auto lines =
          analysis::job_forecast_lines(answer, analysis::answer_job_forecast(answer));
      for (std::size_t i = 0; i < lines.size(); ++i)
        fmt::print("{}{}\n", i == 0 ? "your job " : "  ", lines[i]);
      fmt::print("  job-forecast.csv has each replication\n");
    }
    fmt::print("scenario: {}\n", file);
  }
  return kExitOk;
}

void add_forecast_commands(Commands& c) {
  auto forecast_args = std::make_shared<ForecastArgs>();
  auto* forecast = c.add(
      "forecast",
      "Simulate the coming days from a cluster export (kubectl get ... -o yaml): its nodes and "
      "queues, its "
      "running jobs on their nodes, its waiting jobs in order, new jobs fitted to its history "
      "(docs/forecast.md)");
  forecast
      ->add_option("EXPORT", forecast_args->export_path,
                   "The export: a List of jobs, pods, nodes and queues")
      ->required();
  forecast->add_option("-o,--out", forecast_args->out_dir, "Output directory")
      ->capture_default_str();
  forecast
      ->add_option("--horizon", forecast_args->horizon,
                   "How far to simulate from the export's time")
      ->capture_default_str();
  forecast->add_option("--at", forecast_args->at,
                       "The export's time (RFC 3339); default: the latest time it records");
  forecast
      ->add_option(
          "--remaining", forecast_args->remaining,
          "How long running jobs run on: a fraction of the time they have run (1 = as long again), "
          "'deadline' (until activeDeadlineSeconds, else as long again), or a duration "
          "distribution "
          "such as '{exponential: {mean: 2h}}'")
      ->capture_default_str();
  forecast->add_option("--queued-run-time", forecast_args->queued_run_time,
                       "Run time of waiting jobs (a duration or distribution); default: the median "
                       "of the finished jobs");
  forecast->add_flag("!--no-arrivals", forecast_args->arrivals,
                     "No new jobs: only the jobs of the export");
  forecast->add_option("--seed", forecast_args->seed, "Seed of the run (default 1)")
      ->transform(seed_number());
  forecast
      ->add_option("-r,--replications", forecast_args->replications,
                   "Independent replications, each a draw of the arrivals and run times (default "
                   "5, 20 with --job); with more than one, each goes to OUT/rep-<i>/ and "
                   "OUT/summary.json has 95 % intervals")
      ->transform(replications_number());
  forecast
      ->add_option("-j,--threads", forecast_args->threads,
                   "Threads for replications (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  forecast
      ->add_option("--nodes", forecast_args->nodes,
                   "An export without Node objects: the cluster as one pool of this many nodes")
      ->transform(whole_number(1, kMaxImportNodes));
  forecast
      ->add_option("--gpus-per-node", forecast_args->gpus_per_node,
                   "GPUs per node of that pool (default 8)")
      ->transform(whole_number(0, kMaxImportGpusPerNode));
  forecast->add_option("--job", forecast_args->job,
                       "A job not yet submitted (a manifest file): when it would start and end "
                       "if submitted at time zero, and why it would wait");
  forecast->add_option("--job-run-time", forecast_args->job_run_time,
                       "Its run time (a duration or distribution); default: the median of the "
                       "export's finished jobs");
  forecast->add_flag("!--no-report", forecast_args->report, "Do not write report.html");
  forecast->add_flag("-q,--quiet", forecast_args->quiet, "Print nothing but errors");
  c.on(forecast, [forecast_args] { return forecast_command(*forecast_args); });

  auto fit_args = std::make_shared<FitArgs>();
  auto* fit = c.add("fit",
                    "Fit a generator to a cluster export's history: arrivals by hour "
                    "of day, the mix of kinds, sizes and queues, "
                    "run times (docs/forecast.md)");
  fit->add_option("EXPORT", fit_args->export_path,
                  "The export: a List of jobs (kubectl get ... -o yaml)")
      ->required();
  fit->add_option("-o,--out", fit_args->out, "Write the generator here (default: standard output)");
  fit->add_option("--at", fit_args->at,
                  "Time zero (RFC 3339); default: the latest time the export records");
  fit->add_flag("-q,--quiet", fit_args->quiet, "Print nothing but errors");
  c.on(fit, [fit_args] { return fit_command(*fit_args); });
}

}  // namespace t9k::app
