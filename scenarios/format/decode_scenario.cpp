// The document: apiVersion, kind, metadata and spec's scalars (namespace, horizon, seed,
// replications), then each section in order.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

#include "model/accelerators.hpp"

#include "scenarios/format/detail/decode.hpp"
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
                       [](const auto& r) { return pod_asks_for_gpus(*r.template_); });
  }
  if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    return std::any_of(p->spec.replica_specs.begin(), p->spec.replica_specs.end(),
                       [](const auto& r) { return pod_asks_for_gpus(*r.template_); });
  }
  return pod_asks_for_gpus(*std::get<m::DeepSpeedJob>(job).spec.worker.template_);
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
  // Before the workload: a job of a plugin's own kind needs the plugin that serves it.
  plugins(spec.get("plugins"), sc);
  // A forecast may have no new jobs: the initial state is its workload then.
  if (spec.get("workload").present() || !spec.get("initialState").present())
    workload(spec.get("workload"), sc);
  apply_quota_shares(sc);
  operations(spec.get("operations"), sc);
  check_node_names(sc);
  initial_state(spec.get("initialState"), sc);
  expect(spec.get("expect"), sc);
  warn_gpu_jobs_without_gpus(spec, sc);
  warn_jobs_no_node_holds(spec, sc);
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

namespace {

// What keeps a pod needing `need` off every node of `pools`, or "" when some node holds it.
std::string never_fits(m::ResourceList need, const std::vector<const NodePool*>& pools) {
  const bool share = m::share_of(need) > 0;  // a share needs a whole GPU of the pool's model
  need.erase(m::kGpuMilliName);
  for (const NodePool* p : pools) {
    if ((!share || p->gpus_per_node > 0) && m::fits(need, p->capacity())) return {};
  }
  for (const auto& [name, q] : need) {
    const NodePool* most = nullptr;
    m::Quantity largest{};
    for (const NodePool* p : pools) {
      const auto cap = p->capacity();
      const auto it = cap.find(name);
      if (it != cap.end() && (most == nullptr || largest < it->second)) {
        most = p;
        largest = it->second;
      }
    }
    if (most == nullptr)
      return fmt::format("{} {} per pod, which no node pool has", q.to_string(), name);
    if (largest < q)
      return fmt::format("{} {} per pod; the most a node has is {} (pool {})", q.to_string(), name,
                         largest.to_string(), most->name);
  }
  if (share) return "a share of a GPU, and no node pool has GPUs";
  return "its resources together, which no single node pool's nodes have";
}

}  // namespace

// A job whose pods no node of any pool can ever hold (a resource the cluster lacks, or more of one
// than any node has) waits until the horizon: named at load with what is missing. A warning, since
// an addNodePool operation may be meant for it; node selectors and taints are not considered.
void ScenarioDecoder::warn_jobs_no_node_holds(MapReader& spec, const Scenario& sc) {
  std::vector<const NodePool*> pools;
  for (const auto& p : sc.cluster.node_pools)
    if (p.count > 0) pools.push_back(&p);
  for (const auto& o : sc.operations)
    if (o.type == OperationType::AddNodePool && o.node_pool) pools.push_back(&*o.node_pool);
  if (pools.empty()) return;  // warn_gpu_jobs_without_gpus speaks for an empty cluster
  const Val workload = spec.get("workload");
  const auto mark_of = [&](const char* list, std::size_t i) {
    if (workload.node.IsMap()) {
      const YAML::Node items = workload.node[list];
      if (items.IsSequence() && i < items.size()) return items[i].Mark();
    }
    return workload.present() ? workload.mark : spec.self().mark;
  };
  constexpr int kShown = 5;
  int found = 0;
  const auto check = [&](const m::Job& job, const std::string& at, const YAML::Mark& mark) {
    for (const auto& t : templates_of(job)) {
      const std::string why = never_fits(m::pod_requests(t.tpl->spec), pools);
      if (why.empty()) continue;
      if (++found <= kShown) {
        r_.warning(mark, at + "." + t.path,
                   fmt::format("job \"{}\" asks for {}: its pods can never be placed, so it waits "
                               "until the horizon",
                               m::metadata_of(job).name, why));
      }
      return;
    }
  };
  for (std::size_t i = 0; i < sc.workload.jobs.size(); ++i)
    check(sc.workload.jobs[i].job, fmt::format("spec.workload.jobs[{}]", i), mark_of("jobs", i));
  for (std::size_t i = 0; i < sc.workload.generators.size(); ++i) {
    const auto& classes = sc.workload.generators[i].classes;
    for (std::size_t c = 0; c < classes.size(); ++c)
      check(classes[c].template_job,
            classes.size() > 1
                ? fmt::format("spec.workload.generators[{}].classes[{}].manifest", i, c)
                : fmt::format("spec.workload.generators[{}].manifest", i),
            mark_of("generators", i));
  }
  if (found > kShown)
    r_.warning(workload.mark, "spec.workload",
               fmt::format("{} more jobs or classes whose pods no node can hold", found - kShown));
}

}  // namespace t9k::scenarios::detail
