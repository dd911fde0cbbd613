// spec.cluster: node pools, accelerators, topology, and clusters from an export.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "scenarios/format/traces.hpp"

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kCluster[] = {"nodePools", "topology", "fromTrace", "fromExport",
                                         "accelerators"};
constexpr std::string_view kPool[] = {
    "name",   "count",          "gpusPerNode", "gpuResource",      "gpuModel",        "cpu",
    "memory", "extraResources", "labels",      "pricePerNodeHour", "pricePerGpuHour", "power"};
constexpr std::string_view kPower[] = {"idleWatts", "busyWatts"};
// Bounds that catch a unit slip (a price per GPU-second, watts in milliwatts), not real prices.
constexpr double kMaxPricePerNodeHour = 1e9;
constexpr double kMaxWatts = 1e7;
constexpr std::string_view kTopology[] = {"nodesPerRack", "racksPerSwitch"};

}  // namespace

void ScenarioDecoder::cluster(const Val& v, Scenario& sc) {
  if (!require(r_, v)) return;
  MapReader c(r_, v, kCluster);
  accelerators(c.get("accelerators"), sc);
  // fromTrace: the named trace entry's cluster is added after the pools here (docs/traces.md).
  if (auto x = read_string(r_, c.get("fromTrace"))) {
    sc.cluster.from_trace = *x;
    from_trace_ = c.get("fromTrace");
  }
  const bool elsewhere = c.has("fromTrace") || c.has("fromExport");
  if (elsewhere ? c.has("nodePools") : require(r_, c.get("nodePools"))) {
    const auto pools = read_list(r_, c.get("nodePools"));
    if (pools.empty() && c.get("nodePools").node.IsSequence()) {
      r_.error(c.get("nodePools").mark, c.get("nodePools").path,
               "found an empty list; allowed: at least one node pool");
    }
    std::set<std::string> names;
    for (const Val& item : pools) {
      if (auto p = node_pool(item)) {
        if (!names.insert(p->name).second) {
          r_.error(child_path(item.path, "name"),
                   fmt::format("found \"{}\" again; allowed: node pool names unique", p->name));
          continue;
        }
        sc.cluster.node_pools.push_back(std::move(*p));
      }
    }
  }
  // fromExport: a cluster export's Nodes (names kept) after the pools here, its Queues after
  // the scheduler's (docs/traces.md "Cluster from an export").
  if (auto x = read_string(r_, c.get("fromExport"))) from_export(c.get("fromExport"), *x, sc);
  MapReader t(r_, c.get("topology"), kTopology);
  if (auto x = read_int32(r_, t.get("nodesPerRack"), 0)) sc.cluster.topology.nodes_per_rack = *x;
  if (auto x = read_int32(r_, t.get("racksPerSwitch"), 0))
    sc.cluster.topology.racks_per_switch = *x;
}

std::optional<NodePool> ScenarioDecoder::node_pool(const Val& v) {
  MapReader mr(r_, v, kPool);
  if (!mr.ok() || !v.present()) return std::nullopt;
  NodePool p;
  const std::size_t before = r_.error_count();
  if (require(r_, mr.get("name"))) {
    if (auto x = read_string(r_, mr.get("name"))) {
      p.name = *x;
      if (!is_dns1123_label(p.name)) {
        r_.error(mr.get("name").mark, mr.get("name").path,
                 fmt::format("found \"{}\"; allowed: a DNS-1123 label (node names are "
                             "<pool>-<index>)",
                             p.name));
      }
    }
  }
  if (require(r_, mr.get("count"))) {
    if (auto x = read_int32(r_, mr.get("count"), 0, 1'000'000)) p.count = *x;
  }
  if (auto x =
          read_int32(r_, mr.get("gpusPerNode"), 0, static_cast<std::int32_t>(m::kMaxGpusPerObject)))
    p.gpus_per_node = *x;
  p.gpu_resource = accelerators_.front();
  if (auto x = read_string(r_, mr.get("gpuResource"))) {
    if (std::find(accelerators_.begin(), accelerators_.end(), *x) == accelerators_.end()) {
      std::string names;
      for (const auto& a : accelerators_) names += (names.empty() ? "" : ", ") + a;
      r_.error(
          mr.get("gpuResource").mark, mr.get("gpuResource").path,
          fmt::format("found \"{}\"; allowed: one of spec.cluster.accelerators ({})", *x, names));
    }
    p.gpu_resource = *x;
  }
  if (auto x = read_string(r_, mr.get("gpuModel"))) p.gpu_model = *x;
  for (const char* key : {"cpu", "memory"}) {
    const Val q = mr.get(key);
    if (!require(r_, q)) continue;
    if (auto x = read_quantity(r_, q)) {
      if (x->is_zero()) {
        r_.error(q.mark, q.path,
                 fmt::format("found {}; allowed: a quantity > 0", describe(q.node)));
      }
      (std::string_view(key) == "cpu" ? p.cpu : p.memory) = *x;
    }
  }
  for (const auto& [k, val] : FreeMap(r_, mr.get("extraResources")).entries()) {
    if (!val.present()) {
      r_.error(val.mark, val.path, "found null; allowed: a quantity such as 1, 8");
      continue;
    }
    if (auto q = read_quantity(r_, val)) p.extra_resources[k] = *q;
  }
  if (auto x = read_double(r_, mr.get("pricePerNodeHour"), 0, kMaxPricePerNodeHour))
    p.price_per_node_hour = *x;
  // A GPU-hour price is the node-hour price over its GPUs (the cost of the node's CPUs and memory
  // is in it, as cloud GPU prices are quoted).
  if (const Val g = mr.get("pricePerGpuHour"); g.present()) {
    if (mr.has("pricePerNodeHour")) {
      r_.error(g.mark, g.path,
               "found both pricePerNodeHour and pricePerGpuHour; allowed: one of them");
    } else if (p.gpus_per_node <= 0) {
      r_.error(g.mark, g.path,
               "found a GPU-hour price on a pool without GPUs; allowed: pricePerNodeHour");
    } else if (auto x = read_double(r_, g, 0,
                                    kMaxPricePerNodeHour / static_cast<double>(p.gpus_per_node))) {
      p.price_per_node_hour = *x * static_cast<double>(p.gpus_per_node);
    }
  }
  MapReader power(r_, mr.get("power"), kPower);
  if (auto x = read_double(r_, power.get("idleWatts"), 0, kMaxWatts)) p.idle_watts = *x;
  if (auto x = read_double(r_, power.get("busyWatts"), 0, kMaxWatts)) p.busy_watts = *x;
  if (power.has("busyWatts") && p.busy_watts < p.idle_watts) {
    r_.error(power.get("busyWatts").mark, power.get("busyWatts").path,
             fmt::format("found {}; allowed: at least idleWatts ({})", p.busy_watts, p.idle_watts));
  }
  for (const auto& [k, val] : FreeMap(r_, mr.get("labels")).entries()) {
    p.labels[k] = val.present() ? val.node.Scalar() : "";
    if (!is_qualified_name(k)) {
      r_.error(val.mark, val.path,
               fmt::format("found key \"{}\"; allowed: a qualified label key", k));
    }
  }
  if (r_.error_count() != before) return std::nullopt;
  return p;
}

// spec.cluster.accelerators: extended resources counted as GPUs (docs/scenario-format.md).
void ScenarioDecoder::accelerators(const Val& v, Scenario& sc) {
  if (!v.present()) return;
  const auto names = read_string_list(r_, v);
  if (!names) return;
  if (names->empty()) {
    r_.error(v.mark, v.path,
             "found an empty list; allowed: at least one resource name, such as nvidia.com/gpu");
    return;
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names->size(); ++i) {
    const std::string& n = (*names)[i];
    const std::string at = index_path(v.path, i);
    if (n.find('/') == std::string::npos || !is_qualified_name(n) || n == m::kResourceGpuMilli) {
      r_.error(
          at,
          fmt::format(
              "found \"{}\"; allowed: an extended resource name with its vendor domain, such as "
              "nvidia.com/gpu, amd.com/gpu, hygon.com/dcu, huawei.com/Ascend910",
              n));
    } else if (!seen.insert(n).second) {
      r_.error(at, fmt::format("found \"{}\" again; allowed: each resource once", n));
    }
  }
  sc.cluster.accelerators = *names;
  accelerators_ = *names;
}

void ScenarioDecoder::from_export(const Val& v, const std::string& rel, Scenario& sc) {
  const auto path = input_file(v, rel, "a kubectl export (kubectl get nodes,queues -o yaml)");
  if (!path) return;
  sc.cluster.from_export = *path;
  auto c = load_export_cluster(sc.cluster.from_export, out_);
  if (!c) {
    r_.error(v.mark, v.path, "found errors in the export (reported above)");
    return;
  }
  if (c->pools.empty()) {
    r_.error(v.mark, v.path,
             fmt::format("found no Node objects in \"{}\"; allowed: an export with its nodes "
                         "(kubectl get nodes,queues -o yaml)",
                         rel));
    return;
  }
  for (const auto& n : c->notes) {
    if (n.severity == Severity::Warning)
      r_.warning(v.mark, v.path, n.message);
    else
      r_.note(v.mark, v.path, n.message);
  }
  for (auto& pool : c->pools) sc.cluster.node_pools.push_back(std::move(pool));
  export_queues_ = std::move(c->queues);
  from_export_ = v;
}

// The export's Queues join the scheduler's, which win on a name both have.
void ScenarioDecoder::add_export_queues(Scenario& sc) {
  if (export_queues_.empty()) return;
  if (sc.scheduler.kind != SchedulerKind::T9k) {
    r_.warning(
        from_export_.mark, from_export_.path,
        fmt::format("the export's {} queue{} are not used: the default scheduler has no queues",
                    export_queues_.size(), export_queues_.size() == 1 ? "" : "s"));
    return;
  }
  for (auto& q : export_queues_) {
    const bool defined =
        std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                    [&](const m::Queue& x) { return x.metadata.name == q.metadata.name; });
    if (!defined) sc.scheduler.queues.push_back(std::move(q));
  }
}

// Node names are unique: an export's own names (fromExport, fromTrace) against each other and
// against the "<pool>-<i>" of every other pool, including pools operations add later (the
// world would otherwise stop mid-run on a node added twice).
void ScenarioDecoder::check_node_names(const Scenario& sc) {
  std::map<std::string, std::string> named;  // exported node -> its pool
  const std::string& where = from_export_.present() ? from_export_.path : from_trace_.path;
  for (const auto& p : sc.cluster.node_pools) {
    for (const auto& n : p.node_names) {
      const auto [it, fresh] = named.emplace(n, p.name);
      if (!fresh) {
        r_.error(where, fmt::format("found node \"{}\" in pools {} and {}; allowed: each "
                                    "exported node once (fromTrace and "
                                    "fromExport of one export add it twice)",
                                    n, it->second, p.name));
        return;
      }
    }
  }
  if (named.empty()) return;  // generated names are unique when pool names are
  const auto clash = [&](const NodePool& p) {
    for (std::int32_t i = 0; i < p.count; ++i) {
      const auto it = named.find(fmt::format("{}-{}", p.name, i));
      if (it == named.end()) continue;
      r_.error(
          where,
          fmt::format(
              "found node \"{}-{}\" in pool {} and in the export's pool {}; allowed: node names "
              "unique (rename the pool)",
              p.name, i, p.name, it->second));
      return true;
    }
    return false;
  };
  for (const auto& p : sc.cluster.node_pools) {
    if (p.node_names.empty() && clash(p)) return;
  }
  for (const auto& op : sc.operations) {
    if (op.node_pool && clash(*op.node_pool)) return;
  }
}

}  // namespace t9k::scenarios::detail
