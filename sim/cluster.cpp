#include "sim/cluster.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "kernel/hash.hpp"
#include "model/accelerators.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

Cluster::Cluster(const scenarios::Scenario& scenario, const WorldSettings& settings,
                 kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
                 PodLifecycle& pods, ReconcileQueue& reconciles, CycleTrigger& cycles)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      streams_(streams),
      store_(store),
      pods_(pods),
      reconciles_(reconciles),
      cycles_(cycles) {}

void Cluster::handle(const kernel::DispatchedEvent& e) {
  switch (e.kind) {
    case kNodeFailure:
      node_fault(processes_.at(e.arg));
      break;
    case kSwitchFailure:
      switch_fault(processes_.at(e.arg));
      break;
    case kRepair:
      repaired(repairs_.take(e.arg));
      break;
    default:
      break;
  }
}

// ---- nodes ----

void Cluster::add_node(const scenarios::NodePool& pool, std::int32_t index) {
  const std::int32_t global_index = node_counter_++;
  model::Node n;
  // An export's nodes keep their names and their cordon (docs/traces.md "Cluster from an export").
  if (pool.node_names.empty()) {
    n.metadata.name = fmt::format("{}-{}", pool.name, index);
  } else {
    n.metadata.name = pool.node_names.at(static_cast<std::size_t>(index));
    n.unschedulable = std::find(pool.cordoned.begin(), pool.cordoned.end(), n.metadata.name) !=
                      pool.cordoned.end();
  }
  n.metadata.labels = pool.labels;
  n.capacity = pool.capacity();
  n.allocatable = n.capacity;
  n.gpu_model = pool.gpu_model;
  n.metadata.labels[model::kLabelHostname] = n.metadata.name;
  if (!pool.gpu_model.empty()) n.metadata.labels[model::kLabelGpuModel] = pool.gpu_model;
  const auto& t = sc_.cluster.topology;
  const std::int32_t rack = t.nodes_per_rack > 0 ? global_index / t.nodes_per_rack : 0;
  const std::int32_t sw = t.racks_per_switch > 0 ? rack / t.racks_per_switch : 0;
  n.metadata.labels[model::kLabelRack] = fmt::format("rack-{}", rack);
  n.metadata.labels[model::kLabelSwitch] = fmt::format("switch-{}", sw);
  topo_.add_node(n);
  const std::string name = n.metadata.name.str();
  pool_nodes_[pool.name].push_back(name);
  store_.add_node(std::move(n));
  schedule_node_failure(name);
}

void Cluster::build() {
  for (const auto& pool : sc_.cluster.node_pools) {
    for (std::int32_t i = 0; i < pool.count; ++i) add_node(pool, i);
  }
  // Switch-level faults (§1.7): one process per switch.
  if (st_.faults.switch_failures_per_switch_day > 0) {
    std::set<std::string> switches;
    for (const auto& [name, n] : store_.nodes())
      switches.insert(n.metadata.labels.at(model::kLabelSwitch).str());
    for (const auto& s : switches) schedule_switch_failure(s);
  }
}

void Cluster::drain(const std::string& node, const std::string& cause) {
  store_.set_node_unschedulable(node, true, cause);
  const std::vector<std::string> keys = store_.pods_on(node);
  for (const auto& key : keys) {
    const auto [job, p] = store_.locate(key);
    if (terminated(*p)) continue;
    pods_.delete_pod(job, p->metadata.name, model::DeletionReason::Drain);
    reconciles_.enqueue(job);
  }
}

void Cluster::cordon(const std::string& node, bool unschedulable) {
  store_.set_node_unschedulable(node, unschedulable, unschedulable ? "cordon" : "uncordon");
  cycles_.request_cycle();
}

void Cluster::add_pool(const scenarios::NodePool& pool) {
  for (std::int32_t i = 0; i < pool.count; ++i) add_node(pool, i);
  cycles_.request_cycle();
}

void Cluster::remove_pool(const std::string& pool) {
  const auto it = pool_nodes_.find(pool);
  if (it == pool_nodes_.end()) return;
  std::vector<std::string> names = std::move(it->second);
  pool_nodes_.erase(it);
  std::sort(names.begin(), names.end());  // name order, as the store lists nodes
  for (const auto& name : names) {
    drain(name, "removed");
    store_.remove_node(name);
  }
}

// ---- fault processes ----

SimDuration Cluster::draw_interfailure(kernel::Rng& rng, double per_day) const {
  const double mean_us = 86400e6 / per_day;
  double x = 0;
  if (st_.faults.weibull_shape) {
    const double shape = *st_.faults.weibull_shape;
    const double scale = mean_us / std::tgamma(1 + 1 / shape);
    x = kernel::Weibull(shape, scale)(rng);
  } else {
    x = kernel::Exponential(1 / mean_us)(rng);
  }
  return SimDuration{std::max<std::int64_t>(1, std::llround(std::min(x, 9e17)))};
}

SimDuration Cluster::draw_repair(kernel::Rng& rng, double mean_hours) const {
  if (sc_.faults.repair_time) return sc_.faults.repair_time->draw(rng);
  const double sigma = st_.faults.repair_sigma;
  const double mu = std::log(mean_hours * 3600e6) - sigma * sigma / 2;  // lognormal with that mean
  return SimDuration{std::max<std::int64_t>(1, std::llround(kernel::LogNormal(mu, sigma)(rng)))};
}

kernel::Rng& Cluster::fault_rng(const std::string& name) {
  auto it = fault_rngs_.find(name);
  if (it == fault_rngs_.end())
    it = fault_rngs_.emplace(name, streams_.stream("faults/" + name)).first;
  return it->second;
}

void Cluster::schedule_node_failure(const std::string& node) {
  if (st_.faults.node_failures_per_node_day <= 0 || st_.faults.causes.empty()) return;
  auto& rng = fault_rng("node/" + node);
  const SimTime t = k_.now() + draw_interfailure(rng, st_.faults.node_failures_per_node_day);
  if (t > horizon()) return;
  auto [it, fresh] = process_index_.emplace("node/" + node, processes_.size());
  if (fresh) processes_.push_back(node);
  k_.post_at(t, kPhaseFault, kNodeFailure, kernel::hash_string(node), it->second);
}

void Cluster::schedule_switch_failure(const std::string& sw) {
  auto& rng = fault_rng("switch/" + sw);
  const SimTime t = k_.now() + draw_interfailure(rng, st_.faults.switch_failures_per_switch_day);
  if (t > horizon()) return;
  auto [it, fresh] = process_index_.emplace("switch/" + sw, processes_.size());
  if (fresh) processes_.push_back(sw);
  k_.post_at(t, kPhaseFault, kSwitchFailure, kernel::hash_string(sw), it->second);
}

void Cluster::node_fault(const std::string& node) {
  if (!store_.node(node)) return;  // its pool was removed: the process ends
  auto& rng = fault_rng("node/" + node);
  std::vector<double> weights;
  for (const auto& c : st_.faults.causes) weights.push_back(c.weight);
  const auto& cause = st_.faults.causes[kernel::Categorical(weights)(rng)];
  const SimDuration repair = draw_repair(rng, cause.mean_repair_hours);
  if (cause.radius != BlastRadius::Gpu) {
    take_down({node}, cause.name, repair, Repair{{node}, Repair::Then::NodeProcess, node, false});
    return;
  }
  const bool failed = gpu_fault(node, cause.name, rng);
  // The process goes on after the repair time either way; only a GPU that failed comes back.
  k_.post_in(repair, kPhaseFault, kRepair, kernel::hash_string(node),
             repairs_.park(Repair{{node}, Repair::Then::NodeProcess, node, true, !failed}));
}

// One GPU fails: the pod using it (chosen by GPU count) fails at once, and the node offers one
// GPU less until repaired. A GPU shared by several pods (docs/scheduler.md "Shared GPUs") is
// one unit of weight 1: when it is the one that fails, every pod on it fails.
bool Cluster::gpu_fault(const std::string& node, const std::string& cause, kernel::Rng& rng) {
  const std::int64_t gpus = store_.accelerators().gpus_of(store_.node(node)->allocatable);
  if (gpus <= 0) return false;
  std::vector<std::vector<std::string>> users;
  std::vector<double> weights;
  std::map<std::int32_t, std::vector<std::string>> slots;
  for (const auto& key : store_.pods_on(node)) {
    const model::Pod* p = store_.pod(key);
    if (!p || terminated(*p)) continue;
    if (store_.accelerators().gpus_of(*p->requests) > 0) {
      users.push_back({key});
      weights.push_back(static_cast<double>(store_.accelerators().gpus_of(*p->requests)));
    } else if (model::share_of(*p->requests) > 0) {
      slots[p->gpu_index].push_back(key);
    }
  }
  for (auto& [slot, keys] : slots) {
    users.push_back(std::move(keys));
    weights.push_back(1.0);
  }
  const std::int64_t used = store_.gpus_in_use(node);
  const bool all_busy = used >= gpus;
  if (!users.empty() && (all_busy || rng.below(static_cast<std::uint64_t>(gpus)) <
                                         static_cast<std::uint64_t>(used))) {
    for (const auto& victim : users[kernel::Categorical(weights)(rng)]) {
      const JobId job = *store_.owner_of(victim);
      pods_.terminate(job, victim, model::PodPhase::Failed, 137, model::LossCause::Fault);
      reconciles_.enqueue(job);
    }
  }
  store_.add_allocatable_gpus(node, -1, cause);
  return true;
}

void Cluster::switch_fault(const std::string& sw) {
  auto& rng = fault_rng("switch/" + sw);
  const SimDuration repair = draw_repair(rng, 2.0);  // [D] a cable or switch swap: hours
  // The failure domain is the switch's subtree of the topology graph (faults-and-validation §1.7).
  std::vector<std::string> down;
  for (const auto& name : topo_.subtree_nodes(model::Topology::Level::Switch, sw)) {
    if (store_.node(name)) down.push_back(name);
  }
  if (down.empty()) return;
  take_down(down, "network-switch", repair, Repair{down, Repair::Then::SwitchProcess, sw, false});
}

// Nodes fail: NotReady now; their pods go Unknown now and Failed (137) after the detection
// delay (the kubelet, §11 Q13); the nodes return after `repair`.
void Cluster::take_down(const std::vector<std::string>& nodes, const std::string& cause,
                        std::optional<SimDuration> repair, Repair then) {
  for (const auto& name : nodes) {
    ++down_domains_[name];
    store_.set_node_ready(name, false, cause);
  }
  pods_.nodes_lost(nodes, cause);
  if (repair)
    k_.post_in(*repair, kPhaseFault, kRepair, kernel::hash_string(cause) + 1,
               repairs_.park(std::move(then)));
}

void Cluster::fail_node(const std::string& node, std::optional<SimDuration> repair_after) {
  take_down({node}, "failNode", repair_after, Repair{{node}, Repair::Then::None, node, false});
}

void Cluster::repair_node(const std::string& node) {
  repaired(Repair{{node}, Repair::Then::None, node, false});
}

void Cluster::fail_gpu(const std::string& node, std::optional<SimDuration> repair_after) {
  // Which pod's GPU fails is drawn as for a random GPU fault, from the node's own stream.
  const bool failed = gpu_fault(node, "failGpu", fault_rng("operations/gpu/" + node));
  if (repair_after) {
    k_.post_in(*repair_after, kPhaseFault, kRepair, kernel::hash_string(node),
               repairs_.park(Repair{{node}, Repair::Then::None, node, true, !failed}));
  }
}

bool Cluster::fail_switch(const std::string& sw, std::optional<SimDuration> repair_after) {
  if (!topo_.find(model::Topology::Level::Switch, sw)) return false;
  std::vector<std::string> down;
  for (const auto& name : topo_.subtree_nodes(model::Topology::Level::Switch, sw)) {
    if (store_.node(name)) down.push_back(name);
  }
  if (!down.empty())
    take_down(down, "failSwitch", repair_after, Repair{down, Repair::Then::None, sw, false});
  return true;
}

void Cluster::repaired(Repair r) {
  if (r.gpu) {
    const std::string& node = r.nodes.front();
    if (!store_.node(node)) return;
    if (!r.nothing) store_.add_allocatable_gpus(node, 1, "repair");
  } else {
    for (const auto& name : r.nodes) {
      if (!store_.node(name)) continue;
      if (--down_domains_[name] > 0) continue;  // still down for another fault
      store_.set_node_ready(name, true, "repair");
    }
  }
  cycles_.request_cycle();
  if (r.then == Repair::Then::NodeProcess) {
    schedule_node_failure(r.process);
  } else if (r.then == Repair::Then::SwitchProcess) {
    schedule_switch_failure(r.process);
  }
}

}  // namespace t9k::sim
