// The scenario `t9ksim forecast` writes (docs/forecast.md): the export's cluster (or --nodes when
// it has no Node objects), its queues (and those its jobs name without a Queue object), the jobs
// present at time zero, new jobs fitted to its history, and the user's own job (--job).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/forecast_command.hpp"
#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/traces.hpp"
#include "workload/fit.hpp"

namespace t9k::app {

// The user's job (--job FILE): one GenericJob, PyTorchTrainingJob or DeepSpeedJob.
struct ForecastJob {
  std::string path;  // absolute
  std::string key;   // namespace/name, as jobs.csv has it
  std::string kind;
  std::string queue;  // empty: not on the T9k scheduler
  double gpus = 0;
};

struct ForecastScenario {
  std::string text;
  std::vector<std::string> notes;     // what the command assumed (summary.json "notes")
  std::vector<std::string> cautions;  // where its evidence is thin (summary.json "warnings")
};

// The scenario for `a` on the export `data` (read from `export_abs`) at time zero `at_us`.
// `cluster` is the export's Nodes and Queues (no pools: an export without Node objects, which
// needs a.nodes). Bad options are printed ("t9ksim forecast: --OPTION: ...") and give nullopt.
std::optional<ForecastScenario> forecast_scenario(
    const ForecastArgs& a, const scenarios::TraceData& data,
    const scenarios::ExportCluster& cluster, const std::string& export_abs, std::int64_t at_us,
    const workload::FitResult* fit, const ForecastJob* job, std::uint64_t replications);

// Reads --job: exactly one job manifest, valid, not named like a job of the export, on a queue
// the export has (when it has Queue objects). Errors
// printed; nullopt then.
std::optional<ForecastJob> read_forecast_job(const std::string& path,
                                             const scenarios::TraceData& data,
                                             const scenarios::ExportCluster& cluster);

// Diagnostics of the written scenario that point into it (it does not exist yet when the probe
// fails) said as the options that made the field: "--remaining: found ...". Others as they are.
void print_forecast_diagnostics(const std::vector<scenarios::Diagnostic>& diags,
                                const std::string& scenario_file, bool quiet);

}  // namespace t9k::app
