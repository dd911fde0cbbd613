#include "app/forecast_command.hpp"

#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "analysis/outputs.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"
#include "app/run_command.hpp"
#include "runs/exit_codes.hpp"
#include "runs/messages.hpp"
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

// --remaining as spec.initialState.remaining.
std::string remaining_yaml(const std::string& r) {
  if (r == "deadline") return "{activeDeadline: true}";
  if (r.find_first_not_of("0123456789.") == std::string::npos && !r.empty())
    return fmt::format("{{fractionOfElapsed: {}}}", r);
  return fmt::format("{{distribution: {}}}", r);
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
    for (const auto& n : fit.notes) fmt::print("{}\n", n);
    fmt::print("generator: {}\n", a.out);
  }
  return kExitOk;
}

int forecast_command(const ForecastArgs& a) {
  std::string abs;
  const auto data = read_export("forecast", a.export_path, abs);
  if (!data) return kExitUsage;
  if (data->pools.empty()) {
    fmt::print(
        stderr,
        "t9ksim forecast: {}: the export has no Node objects: a forecast starts from the cluster's "
        "nodes (kubectl get "
        "genericjobs,pytorchtrainingjobs,deepspeedjobs,queues,podgroups,nodes,pods -A "
        "-o yaml)\n",
        a.export_path);
    return kExitUsage;
  }
  const auto at = time_zero("forecast", a.at, *data);
  if (!at) return kExitUsage;
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
  const std::string q = scenarios::yaml_quoted(abs);
  // The name titles the report and the summary: which export, from when (not just "forecast").
  const std::string what =
      fmt::format("forecast of {} from {}", fs::path(a.export_path).filename().string(),
                  scenarios::format_trace_time(*at));
  std::string text = "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata:\n";
  text += fmt::format("  name: {}\n  description: {}\n", scenarios::yaml_quoted(what),
                      scenarios::yaml_quoted("t9ksim " + what));
  text += fmt::format("spec:\n  horizon: {}\n  seed: {}\n", a.horizon, a.seed.value_or(1));
  text += fmt::format("  cluster: {{fromExport: {}}}\n  scheduler:\n    name: t9k\n", q);
  text += fmt::format("  initialState:\n    fromExport: {}\n    at: {}\n    remaining: {}\n", q,
                      scenarios::yaml_quoted(scenarios::format_trace_time(*at)),
                      remaining_yaml(a.remaining));
  if (!a.queued_run_time.empty()) text += fmt::format("    queuedRunTime: {}\n", a.queued_run_time);
  if (a.arrivals) {
    text += "  workload:\n    generators:\n";
    for (const auto& n : fit.notes) text += "    # " + n + "\n";
    text += fit.yaml;
  }
  // Checked before anything is written: a bad --remaining or --horizon is reported as such.
  const auto probe = scenarios::parse_scenario(text, "<forecast>");
  if (!probe.ok()) {
    print_diagnostics(probe.diagnostics, a.quiet);
    return kExitUsage;
  }
  if (!a.quiet) {
    for (const auto& n : fit.notes) fmt::print("fit: {}\n", n);
  }
  RunOneOptions opt;
  opt.quiet = a.quiet;
  opt.progress = !a.quiet;
  const int rc = run_into_folder("forecast", a.out_dir, {abs}, text, opt, a.report);
  if (rc == kExitOk && !a.quiet) {
    fmt::print("scenario: {}\n", (fs::path(a.out_dir) / "scenario.yaml").string());
    if (a.report) fmt::print("report: {}\n", (fs::path(a.out_dir) / "report.html").string());
  }
  return rc;
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
  forecast->add_option("--seed", forecast_args->seed, "Seed of the run (default 1)");
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
