// A miniature world for scheduler tests: builds model objects, keeps the snapshot up to date
// and applies decisions the way sim/ will (bindings bind; evictions delete the pod at once).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "model/scheduling.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/snapshot.hpp"

namespace t9k::scheduler::testing {

using model::Quantity;
using model::ResourceList;

inline ResourceList res(std::int64_t cpu, std::int64_t gpu = 0, std::int64_t mem_gi = 0) {
  ResourceList r;
  if (cpu) r[model::kResourceCpu] = Quantity::from_units(cpu);
  if (gpu) r[model::kResourceGpu] = Quantity::from_units(gpu);
  if (mem_gi) r[model::kResourceMemory] = Quantity::from_units(mem_gi * 1024 * 1024 * 1024);
  return r;
}

// A share of one GPU in milli (t9ksim.io/gpu-milli), plus CPU.
inline ResourceList share(std::int64_t milli, std::int64_t cpu = 0) {
  ResourceList r;
  if (cpu) r[model::kResourceCpu] = Quantity::from_units(cpu);
  r[model::kResourceGpuMilli] = Quantity::from_units(milli);
  return r;
}

inline model::SimTime sec(std::int64_t s) { return model::SimTime{kernel::seconds(s)}; }

// SplitMix64: our own generator for random histories, so that the cases do not depend on the
// standard library.
struct Rand {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int uniform(int lo, int hi) {
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return uniform(0, 99) < percent; }
};

struct TestWorld {
  ClusterSnapshot snap;
  std::map<std::string, model::Pod> pods;
  std::int64_t tick = 0;                 // creation times: one second apart, in call order
  std::vector<std::string> terminating;  // evicted by apply_graceful, not finished yet

  model::Node& add_node(const std::string& name, const ResourceList& cap,
                        const std::string& rack = "", const std::string& sw = "",
                        model::Labels labels = {}) {
    static thread_local model::Node n;
    n = model::Node{};
    n.metadata.name = name;
    n.metadata.labels = std::move(labels);
    if (!rack.empty()) n.metadata.labels[model::kLabelRack] = rack;
    if (!sw.empty()) n.metadata.labels[model::kLabelSwitch] = sw;
    n.capacity = cap;
    n.allocatable = cap;
    snap.upsert_node(n);
    return n;
  }

  model::Queue add_queue(const std::string& name, std::int32_t priority,
                         std::optional<ResourceList> quota = std::nullopt,
                         std::optional<bool> preemptible = std::nullopt) {
    model::Queue q;
    q.metadata.name = name;
    q.spec.priority = priority;
    q.spec.quota = std::move(quota);
    q.spec.preemptible = preemptible;
    snap.upsert_queue(q);
    return q;
  }

  model::PodGroup add_group(const std::string& name, const std::string& queue,
                            std::int32_t min_member, std::int32_t priority = 0,
                            std::vector<model::PodGroupRole> roles = {},
                            std::optional<std::int64_t> created = std::nullopt) {
    model::PodGroup g;
    g.metadata.name = name;
    g.metadata.creation_timestamp = sec(created ? *created : ++tick);
    g.spec.queue = queue;
    g.spec.min_member = min_member;
    g.spec.priority = priority;
    g.spec.roles = std::move(roles);
    snap.upsert_pod_group(g);
    return g;
  }

  // A T9k pod of `group` (empty group: a bare pod with a queue label).
  model::Pod& add_pod(const std::string& name, const std::string& group, const ResourceList& req,
                      const std::string& role = "", const std::string& queue = "") {
    model::Pod p;
    p.metadata.name = name;
    p.metadata.creation_timestamp = sec(++tick);
    p.scheduler_name = model::kT9kSchedulerName;
    p.pod_group = group;
    p.queue = queue;
    p.role = role;
    p.requests = req;
    pods[name] = p;
    snap.upsert_pod(p);
    return pods[name];
  }

  // A group goes, with those of its pods still stored.
  void remove_group(const std::string& name, const std::vector<std::string>& members) {
    for (const auto& p : members)
      if (pods.count(p)) {
        snap.remove_pod(p);
        pods.erase(p);
      }
    snap.remove_pod_group(name);
  }

  model::Pod& add_default_pod(const std::string& name, const ResourceList& req,
                              std::int32_t priority = 0) {
    model::Pod p;
    p.metadata.name = name;
    p.metadata.creation_timestamp = sec(++tick);
    p.priority = priority;
    p.requests = req;
    pods[name] = p;
    snap.upsert_pod(p);
    return pods[name];
  }

  // Adds `n` pods "<group>-<i>" of one shape.
  void add_pods(const std::string& group, int n, const ResourceList& req,
                const std::string& role = "") {
    for (int i = 0; i < n; ++i) add_pod(group + "-" + role + std::to_string(i), group, req, role);
  }

  // Runs a pod as already bound to a node (state before the test).
  void run_on(const std::string& pod, const std::string& node) {
    pods.at(pod).node_name = node;
    pods.at(pod).phase = model::PodPhase::Running;
    snap.upsert_pod(pods.at(pod));
    // A share's slot as the snapshot chose it (best fit), as the world records a binding's.
    pods.at(pod).gpu_index = snap.pods()[static_cast<std::size_t>(*snap.find_pod(pod))].gpu_slot;
  }

  void apply(const Decisions& d) {
    for (const auto& b : d.bindings) {
      snap.bind(b.pod, b.node, b.gpu_slot);
      pods.at(b.pod).node_name = b.node;
      pods.at(b.pod).gpu_index = b.gpu_slot;
    }
    for (const auto& e : d.evictions) {
      snap.remove_pod(e.pod);
      pods.erase(e.pod);
      // §8.6 nomination, as the world does right after each preemption eviction.
      if (e.reason == model::DeletionReason::Preemption) snap.nominate(e.preemptor, e.reservations);
    }
  }

  // As apply(), but evicted pods terminate gracefully: they keep their resources (snapshot
  // evict) until finish() removes them, as the world's kubelet does after the grace period.
  void apply_graceful(const Decisions& d) {
    for (const auto& b : d.bindings) {
      snap.bind(b.pod, b.node, b.gpu_slot);
      pods.at(b.pod).node_name = b.node;
      pods.at(b.pod).gpu_index = b.gpu_slot;
    }
    for (const auto& e : d.evictions) {
      snap.evict(e.pod);
      terminating.push_back(e.pod);
      if (e.reason == model::DeletionReason::Preemption) snap.nominate(e.preemptor, e.reservations);
    }
  }

  // A terminating pod is gone.
  void finish(const std::string& pod) {
    snap.remove_pod(pod);
    pods.erase(pod);
    std::erase(terminating, pod);
  }

  Decisions cycle(Scheduler& s, std::int64_t now_s = 1000000) {
    Decisions d = s.schedule(snap, sec(now_s));
    apply(d);
    return d;
  }

  std::string node_of(const std::string& pod) const {
    const auto it = pods.find(pod);
    return it == pods.end() ? "<deleted>" : it->second.node_name.str();
  }

  int bound_in(const std::string& group_prefix) const {
    int n = 0;
    for (const auto& [name, p] : pods)
      if (name.rfind(group_prefix, 0) == 0 && !p.node_name.empty()) ++n;
    return n;
  }
};

inline bool has_binding(const Decisions& d, const std::string& pod) {
  for (const auto& b : d.bindings)
    if (b.pod == pod) return true;
  return false;
}

inline bool has_eviction(const Decisions& d, const std::string& pod) {
  for (const auto& e : d.evictions)
    if (e.pod == pod) return true;
  return false;
}

}  // namespace t9k::scheduler::testing
