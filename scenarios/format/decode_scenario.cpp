// The document: apiVersion, kind, metadata and spec's scalars (namespace, horizon, seed,
// replications), then each section in order.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

#include "scenarios/format/traces.hpp"

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kTop[] = {"apiVersion", "kind", "metadata", "spec"};
constexpr std::string_view kMeta[] = {"name", "description"};
constexpr std::string_view kSpec[] = {
    "namespace",  "cluster", "scheduler", "controllers",  "kubelet", "faults",  "workload",
    "operations", "horizon", "seed",      "replications", "expect",  "plugins", "initialState"};

bool pod_asks_for_gpus(const m::PodTemplateSpec& t) {
  for (const auto& c : t.spec.containers) {
    for (const auto* rl : {&c.resources.requests, &c.resources.limits}) {
      if (!m::get_resource(*rl, m::kResourceGpu).is_zero() ||
          !m::get_resource(*rl, m::kResourceGpuMilli).is_zero()) {
        return true;
      }
    }
  }
  return false;
}

bool asks_for_gpus(const m::Job& job) {
  if (const auto* g = std::get_if<m::GenericJob>(&job)) {
    return std::any_of(g->spec.replica_specs.begin(), g->spec.replica_specs.end(),
                       [](const auto& r) { return pod_asks_for_gpus(r.template_); });
  }
  if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    return std::any_of(p->spec.replica_specs.begin(), p->spec.replica_specs.end(),
                       [](const auto& r) { return pod_asks_for_gpus(r.template_); });
  }
  return pod_asks_for_gpus(std::get<m::DeepSpeedJob>(job).spec.worker.template_);
}

}  // namespace

std::optional<Scenario> ScenarioDecoder::scenario(const Val& root) {
  MapReader top(r_, root, kTop);
  if (!top.ok()) return std::nullopt;
  const std::string_view api[] = {kScenarioApiVersion};
  if (require(r_, top.get("apiVersion"))) read_choice(r_, top.get("apiVersion"), api);
  const std::string_view kind[] = {kScenarioKind};
  if (require(r_, top.get("kind"))) read_choice(r_, top.get("kind"), kind);
  Scenario sc;
  MapReader meta(r_, top.get("metadata"), kMeta);
  if (require(r_, top.get("metadata")) && require(r_, meta.get("name"))) {
    if (auto x = read_string(r_, meta.get("name"))) sc.name = *x;
  }
  if (auto x = read_string(r_, meta.get("description"))) sc.description = *x;
  const Val spec_v = top.get("spec");
  if (!require(r_, spec_v)) return std::nullopt;
  MapReader spec(r_, spec_v, kSpec);
  if (!spec.ok()) return std::nullopt;

  if (auto x = read_string(r_, spec.get("namespace"))) {
    sc.default_namespace = *x;
    if (!is_dns1123_label(*x)) {
      r_.error(spec.get("namespace").mark, spec.get("namespace").path,
               fmt::format("found \"{}\"; allowed: a DNS-1123 label", *x));
    }
  }
  const Val horizon = spec.get("horizon");
  if (require(r_, horizon)) {
    if (auto x = read_duration(r_, horizon)) {
      if (x->count() == 0) r_.error(horizon.mark, horizon.path, "found 0; allowed: a duration > 0");
      if (*x > kernel::days(kMaxHorizonDays)) {
        r_.error(horizon.mark, horizon.path,
                 fmt::format("found {} days; allowed: at most {} days (1,000 years)",
                             x->count() / kernel::days(1).count(), kMaxHorizonDays));
      }
      sc.horizon = *x;
    }
  }
  if (auto x = read_uint64(r_, spec.get("seed"))) sc.seed = static_cast<std::uint64_t>(*x);
  if (auto x = read_int32(r_, spec.get("replications"), 1, 100000)) sc.replications = *x;

  cluster(spec.get("cluster"), sc);
  scheduler(spec.get("scheduler"), sc);
  add_export_queues(sc);
  controllers(spec.get("controllers"), sc);
  kubelet(spec.get("kubelet"), sc);
  faults(spec.get("faults"), sc);
  // A forecast may have no new jobs: the initial state is its workload then.
  if (spec.get("workload").present() || !spec.get("initialState").present())
    workload(spec.get("workload"), sc);
  operations(spec.get("operations"), sc);
  check_node_names(sc);
  initial_state(spec.get("initialState"), sc);
  expect(spec.get("expect"), sc);
  plugins(spec.get("plugins"), sc);
  warn_gpu_jobs_without_gpus(spec, sc);
  return sc;
}

// Jobs that ask for GPUs on a cluster that never has any wait for ever: a warning, since a
// CPU-only study is legitimate but this combination is almost always a slip.
void ScenarioDecoder::warn_gpu_jobs_without_gpus(MapReader& spec, const Scenario& sc) {
  std::int64_t gpus = 0;
  for (const auto& p : sc.cluster.node_pools) gpus += std::int64_t{p.count} * p.gpus_per_node;
  const bool adds_nodes =
      std::any_of(sc.operations.begin(), sc.operations.end(),
                  [](const Operation& o) { return o.type == OperationType::AddNodePool; });
  if (gpus > 0 || adds_nodes) return;
  std::string first;
  for (std::size_t i = 0; i < sc.workload.jobs.size() && first.empty(); ++i) {
    if (asks_for_gpus(sc.workload.jobs[i].job)) first = fmt::format("spec.workload.jobs[{}]", i);
  }
  for (std::size_t i = 0; i < sc.workload.generators.size() && first.empty(); ++i) {
    for (const auto& c : sc.workload.generators[i].classes) {
      if (asks_for_gpus(c.template_job) || c.gpus)
        first = fmt::format("spec.workload.generators[{}]", i);
    }
  }
  for (std::size_t i = 0; i < sc.workload.traces.size() && first.empty(); ++i) {
    const auto& d = sc.workload.traces[i].data;
    if (d && std::any_of(d->records.begin(), d->records.end(),
                         [](const TraceRecord& r) { return r.gpus > 0 || r.gpu_milli > 0; })) {
      first = fmt::format("spec.workload.traces[{}]", i);
    }
  }
  if (first.empty()) return;
  const Val cluster = spec.get("cluster");
  r_.warning(cluster.mark, cluster.present() ? cluster.path : "spec.cluster",
             fmt::format("found no GPUs in the cluster, but {} asks for GPUs: those jobs will "
                         "wait until the horizon",
                         first));
}

}  // namespace t9k::scenarios::detail
