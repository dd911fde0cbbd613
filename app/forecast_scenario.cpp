#include "app/forecast_scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "analysis/units.hpp"
#include "model/accelerators.hpp"
#include "scenarios/format/manifests.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::app {

namespace fs = std::filesystem;
namespace m = t9k::model;

namespace {

// --remaining as spec.initialState.remaining.
std::string remaining_yaml(const std::string& r) {
  if (r == "deadline") return "{activeDeadline: true}";
  if (r.find_first_not_of("0123456789.") == std::string::npos && !r.empty())
    return fmt::format("{{fractionOfElapsed: {}}}", r);
  return fmt::format("{{distribution: {}}}", r);
}

std::string queue_of(const m::Job& job) {
  const auto& s = m::scheduler_of(job).t9k_scheduler;
  return s ? s->queue.str() : std::string();
}

std::string list(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 5) s += fmt::format(", and {} more", names.size() - 5);
  return s;
}

// The queues the export's jobs (finished, then unfinished) name, each once, in that order.
std::vector<std::string> job_queues(const scenarios::TraceData& data) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  const auto use = [&](const std::string& q) {
    if (!q.empty() && seen.insert(q).second) out.push_back(q);
  };
  for (const auto& j : data.objects) use(queue_of(j));
  for (const auto& u : data.unfinished) {
    if (u.error.empty()) use(queue_of(u.job));
  }
  return out;
}

// The queues the export's jobs and the user's job name that the export has no Queue object for:
// without them the scenario would not load. "default" always exists (§8.2).
std::vector<std::string> missing_queues(const scenarios::TraceData& data,
                                        const scenarios::ExportCluster& cluster,
                                        const ForecastJob* job) {
  std::set<std::string> have{std::string(m::kDefaultQueue)};
  for (const auto& q : cluster.queues) have.insert(q.metadata.name.str());
  std::vector<std::string> named = job_queues(data);
  if (job) named.push_back(job->queue);
  std::vector<std::string> out;
  for (const auto& q : named) {
    if (!q.empty() && have.insert(q).second) out.push_back(q);
  }
  return out;
}

std::string queue_manifest(const m::Queue& q) {
  return "    - manifest: " + scenarios::to_compact_json(scenarios::Object{q}) + "\n";
}

// The median run time of the export's finished jobs (the lower middle of an even count).
std::optional<std::int64_t> median_run_us(const scenarios::TraceData& data) {
  std::vector<std::int64_t> runs;
  for (const auto& r : data.records) runs.push_back(r.duration_us);
  if (runs.empty()) return std::nullopt;
  std::sort(runs.begin(), runs.end());
  return runs[(runs.size() - 1) / 2];
}

}  // namespace

std::optional<ForecastScenario> forecast_scenario(
    const ForecastArgs& a, const scenarios::TraceData& data,
    const scenarios::ExportCluster& cluster, const std::string& export_abs, std::int64_t at_us,
    const workload::FitResult* fit, const ForecastJob* job, std::uint64_t replications) {
  ForecastScenario out;
  const std::string q = scenarios::yaml_quoted(export_abs);
  // The name titles the report and the summary: which export, from when (not just "forecast").
  const std::string what =
      fmt::format("forecast of {} from {}", fs::path(a.export_path).filename().string(),
                  scenarios::format_trace_time(at_us));
  std::string& t = out.text;
  t = "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata:\n";
  t += fmt::format("  name: {}\n  description: {}\n", scenarios::yaml_quoted(what),
                   scenarios::yaml_quoted("t9ksim " + what));
  t += fmt::format("spec:\n  horizon: {}\n  seed: {}\n  replications: {}\n", a.horizon,
                   a.seed.value_or(1), replications);
  const bool from_nodes = cluster.pools.empty();
  if (from_nodes) {
    t += fmt::format(
        "  cluster:\n    nodePools: [{{name: nodes, count: {}, gpusPerNode: {}, cpu: 64, memory: "
        "512Gi}}]\n",
        a.nodes, a.gpus_per_node.value_or(8));
    out.notes.push_back(fmt::format(
        "cluster from --nodes: {} node{} x {} GPUs, 64 CPUs, 512Gi (the export has no Node "
        "objects): running jobs are placed by the scheduler, not on their recorded nodes",
        a.nodes, a.nodes == 1 ? "" : "s", a.gpus_per_node.value_or(8)));
  } else {
    t += fmt::format("  cluster: {{fromExport: {}}}\n", q);
  }
  t += "  scheduler:\n    name: t9k\n";
  const auto missing = missing_queues(data, cluster, job);
  if (from_nodes || !missing.empty()) t += "    queues:\n";
  // Without Node objects the export's Queues do not come with the cluster: written here.
  if (from_nodes) {
    for (const auto& queue : cluster.queues) t += queue_manifest(queue);
  }
  for (const auto& name : missing) {
    m::Queue queue;
    queue.metadata.name = name;
    t += queue_manifest(queue);
  }
  if (!missing.empty()) {
    out.notes.push_back(fmt::format(
        "{} queue{} the jobs name but the export has no Queue object for, created without a "
        "quota at priority 0 (export them too: kubectl get queues -o yaml): {}",
        missing.size(), missing.size() == 1 ? "" : "s", list(missing)));
  }
  t += fmt::format("  initialState:\n    fromExport: {}\n    at: {}\n    remaining: {}\n", q,
                   scenarios::yaml_quoted(scenarios::format_trace_time(at_us)),
                   remaining_yaml(a.remaining));
  if (!a.queued_run_time.empty()) t += fmt::format("    queuedRunTime: {}\n", a.queued_run_time);
  if (fit || job) t += "  workload:\n";
  if (job) {
    std::string run = a.job_run_time;
    if (run.empty()) {
      const auto median = median_run_us(data);
      if (!median) {
        fmt::print(stderr,
                   "t9ksim forecast: --job: the export has no finished job whose run time the "
                   "job could take; give it with --job-run-time (a duration or distribution)\n");
        return std::nullopt;
      }
      run = fmt::format("{}s", std::max<std::int64_t>(1, *median / 1000000));
      out.notes.push_back(fmt::format(
          "your job runs {} (the median run time of the export's {} finished jobs; "
          "--job-run-time to choose)",
          analysis::format_duration_s(static_cast<double>(*median) / 1e6), data.records.size()));
    }
    t += fmt::format("    jobs:\n    - {{path: {}, submitAt: 0s, behaviour: {{runTime: {}}}}}\n",
                     scenarios::yaml_quoted(job->path), run);
    out.notes.push_back(fmt::format(
        "your job {} is submitted at time zero, behind the jobs already waiting", job->key));
  }
  if (fit) {
    t += "    generators:\n";
    for (const auto& n : fit->notes) t += "    # " + n + "\n";
    for (const auto& n : fit->cautions) t += "    # caution: " + n + "\n";
    t += fit->yaml;
    for (const auto& n : fit->notes) out.notes.push_back("fit: " + n);
    for (const auto& n : fit->class_notes) out.notes.push_back("fit: " + n);
    for (const auto& n : fit->cautions) out.cautions.push_back("fit: " + n);
  }
  return out;
}

std::optional<ForecastJob> read_forecast_job(const std::string& path,
                                             const scenarios::TraceData& data,
                                             const scenarios::ExportCluster& cluster) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    fmt::print(stderr, "t9ksim forecast: --job: {}: not a file\n", path);
    return std::nullopt;
  }
  const auto set = scenarios::load_manifests(path);
  if (!set.ok()) {
    for (const auto& d : set.diagnostics) {
      if (d.severity == scenarios::Severity::Error)
        fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
    }
    return std::nullopt;
  }
  std::vector<const scenarios::LoadedObject*> jobs;
  for (const auto& o : set.objects) {
    if (!std::holds_alternative<m::Queue>(o.object) &&
        !std::holds_alternative<m::PodGroup>(o.object))
      jobs.push_back(&o);
  }
  if (jobs.size() != 1 || set.objects.size() != 1) {
    fmt::print(stderr,
               "t9ksim forecast: --job: {}: found {} object{} ({} job{}); allowed: exactly one "
               "GenericJob, PyTorchTrainingJob or DeepSpeedJob\n",
               path, set.objects.size(), set.objects.size() == 1 ? "" : "s", jobs.size(),
               jobs.size() == 1 ? "" : "s");
    return std::nullopt;
  }
  const auto& object = jobs.front()->object;
  m::Job job = std::visit(
      [](const auto& x) -> m::Job {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, m::Queue> ||
                      std::is_same_v<std::decay_t<decltype(x)>, m::PodGroup>) {
          return m::GenericJob{};  // not reached: filtered above
        } else {
          return x;
        }
      },
      object);
  ForecastJob out;
  out.path = fs::absolute(path).lexically_normal().string();
  auto meta = m::metadata_of(job);
  if (meta.namespace_.empty()) meta.namespace_ = "default";  // the scenario's default namespace
  out.key = m::object_key(meta);
  out.kind = std::string(m::to_string(m::kind_of(job)));
  out.queue = queue_of(job);
  const m::Accelerators acc;
  out.gpus =
      static_cast<double>(acc.gpu_milli_of(*m::shape_of(job, acc).requests)) / m::kGpuMilliPerGpu;
  const auto same = [&](const m::Job& other) {
    auto om = m::metadata_of(other);
    if (om.namespace_.empty()) om.namespace_ = "default";
    return m::object_key(om) == out.key;
  };
  const bool taken = std::any_of(data.objects.begin(), data.objects.end(), same) ||
                     std::any_of(data.unfinished.begin(), data.unfinished.end(),
                                 [&](const scenarios::TraceData::Unfinished& u) {
                                   return u.error.empty() && same(u.job);
                                 });
  if (taken) {
    fmt::print(stderr,
               "t9ksim forecast: --job: {}: the export already has a job {}; allowed: a job "
               "not yet submitted (give it another metadata.name)\n",
               path, out.key);
    return std::nullopt;
  }
  // A queue the cluster does not know is a typo far more often than a new queue: refused, unless
  // the export has no Queue objects at all (then every queue is created, with a note).
  if (!out.queue.empty() && out.queue != m::kDefaultQueue && !cluster.queues.empty()) {
    std::set<std::string> known;
    for (const auto& q : cluster.queues) known.insert(q.metadata.name.str());
    for (const auto& q : job_queues(data)) known.insert(q);
    if (!known.count(out.queue)) {
      std::vector<std::string> names(known.begin(), known.end());
      fmt::print(stderr,
                 "t9ksim forecast: --job: {}: found queue \"{}\"; allowed: a queue of the "
                 "export ({}) or default\n",
                 path, out.queue, list(names));
      return std::nullopt;
    }
  }
  return out;
}

void print_forecast_diagnostics(const std::vector<scenarios::Diagnostic>& diags,
                                const std::string& scenario_file, bool quiet) {
  // The option that wrote each part of the scenario.
  static const std::pair<const char*, const char*> kOptions[] = {
      {"spec.horizon", "--horizon"},
      {"spec.seed", "--seed"},
      {"spec.replications", "--replications"},
      {"spec.cluster.nodePools", "--nodes / --gpus-per-node"},
      {"spec.initialState.remaining", "--remaining"},
      {"spec.initialState.queuedRunTime", "--queued-run-time"},
      {"spec.initialState.at", "--at"},
      {"spec.workload.jobs[0].behaviour", "--job-run-time"},
      {"spec.workload.jobs", "--job"},
  };
  for (const auto& d : diags) {
    const bool error = d.severity == scenarios::Severity::Error;
    if (!error && quiet) continue;
    const char* option = nullptr;
    if (d.file == scenario_file) {
      for (const auto& [prefix, opt] : kOptions) {
        if (d.path.starts_with(prefix)) {
          option = opt;
          break;
        }
      }
    }
    if (error && option) {
      fmt::print(stderr, "t9ksim forecast: error: {}: {} ({} in the scenario it writes)\n", option,
                 d.message, d.path);
    } else {
      fmt::print(error ? stderr : stdout, "{}\n", scenarios::format_diagnostic(d));
    }
  }
}

}  // namespace t9k::app
