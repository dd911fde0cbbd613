#include "scheduler/stages.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace t9k::scheduler {

__extension__ using Int128 = __int128;

namespace {

// ---- queue sort -------------------------------------------------------------------------------

class QueuePriority final : public QueueSortStage {
 public:
  std::string_view name() const override { return "queue-priority"; }
  int compare(const CycleState& st, QueueId a, QueueId b) const override {
    const auto& qs = st.snapshot().queues();
    const auto pa = qs[static_cast<std::size_t>(a)].priority;
    const auto pb = qs[static_cast<std::size_t>(b)].priority;
    return pa > pb ? -1 : (pa < pb ? 1 : 0);  // §8.5: higher priority first
  }
};

class DominantResourceShare final : public QueueSortStage {
 public:
  explicit DominantResourceShare(DrfDenominator d) : denominator_(d) {}
  std::string_view name() const override { return "dominant-resource-share"; }
  int compare(const CycleState& st, QueueId a, QueueId b) const override {
    // §8.5: the lower dominant share goes first.
    return compare_shares(dominant_share(st, a, denominator_), dominant_share(st, b, denominator_));
  }

 private:
  DrfDenominator denominator_;
};

// ---- filters ----------------------------------------------------------------------------------

class NodeReady final : public FilterStage {
 public:
  std::string_view name() const override { return "node-ready"; }
  bool filter(const CycleState& st, const PodInfo&, const QueueInfo*, NodeId n) const override {
    return st.snapshot().nodes()[static_cast<std::size_t>(n)].schedulable();
  }
};

class NodeResourcesFit final : public FilterStage {
 public:
  std::string_view name() const override { return "node-resources-fit"; }
  bool filter(const CycleState& st, const PodInfo& pod, const QueueInfo*, NodeId n) const override {
    return st.fits_pod(n, pod);
  }
};

class NodeSelectorFilter final : public FilterStage {
 public:
  std::string_view name() const override { return "node-selector"; }
  bool filter(const CycleState& st, const PodInfo& pod, const QueueInfo*, NodeId n) const override {
    return st.snapshot().selector_matches(pod.selector, n);
  }
};

class QueueNodeSelector final : public FilterStage {
 public:
  std::string_view name() const override { return "queue-node-selector"; }
  bool filter(const CycleState& st, const PodInfo&, const QueueInfo* q, NodeId n) const override {
    return q == nullptr || st.snapshot().selector_matches(q->selector, n);  // §8.2 nodeSelector
  }
};

// ---- scores -----------------------------------------------------------------------------------

// floor(part * 1000 / whole) for part >= 0, whole > 0: the per-mille both the bin-pack score and
// its bound use. part * 1000 fits in 64 bits on any real node; the 128-bit division (a library
// call, a few percent of a trace replay) only guards absurd capacities. Same quotient either way.
std::int64_t per_mille(std::int64_t part, std::int64_t whole) {
  constexpr std::int64_t kExact64 = std::numeric_limits<std::int64_t>::max() / 1000;
  if (part <= kExact64) return part * 1000 / whole;
  return static_cast<std::int64_t>(static_cast<Int128>(part) * 1000 / whole);
}

// Utilisation after placement, 0..1000; a node without the resource counts as full so that a
// pod that does not need GPUs prefers nodes that have none to waste.
std::int64_t util_after(const CycleState& st, const PodInfo& pod, NodeId n, Dim d) {
  const std::int64_t alloc = at(st.snapshot().nodes()[static_cast<std::size_t>(n)].allocatable, d);
  if (alloc <= 0) return 1000;
  return 1000 - per_mille(std::max<std::int64_t>(0, st.free(n, d) - at(pod.request, d)), alloc);
}

std::int64_t pack_score(const CycleState& st, const PodInfo& pod, NodeId n) {
  return (7 * util_after(st, pod, n, kDimGpu) + 3 * util_after(st, pod, n, kDimCpu)) / 10;
}

class BinPack final : public ScoreStage {
 public:
  std::string_view name() const override { return "bin-pack"; }
  std::int64_t score(const CycleState& st, const PodInfo& pod, NodeId n,
                     const PlacementContext&) const override {
    return pack_score(st, pod, n);  // least free GPUs (then CPU) after placement first
  }
  // A node with at least f free keeps at least x = f - request after the pod, and its
  // allocatable is at most the cluster's largest: util_after is at most 1000 - x * 1000 / largest
  // (a floor only grows with a smaller divisor), for GPU and CPU alike. A node without CPU counts
  // as full, so any such node leaves the CPU term unbounded.
  std::int64_t max_score(const CycleState& st, const PodInfo& pod, const Reach& reach,
                         const PlacementContext&) const override {
    const auto& snap = st.snapshot();
    const std::int64_t gpu_term =
        max_util(reach.free_gpu, at(pod.request, kDimGpu), snap.max_gpu_allocatable());
    const std::int64_t cpu_term =
        snap.some_node_without_cpu()
            ? 1000
            : max_util(reach.free_cpu, at(pod.request, kDimCpu), snap.max_cpu_allocatable());
    return (7 * gpu_term + 3 * cpu_term) / 10;
  }

 private:
  static std::int64_t max_util(std::int64_t free, std::int64_t request, std::int64_t largest) {
    if (largest <= 0) return 1000;
    return 1000 - std::min<std::int64_t>(
                      1000, per_mille(std::max<std::int64_t>(0, free - request), largest));
  }
};

class Spread final : public ScoreStage {
 public:
  std::string_view name() const override { return "spread"; }
  std::int64_t score(const CycleState& st, const PodInfo& pod, NodeId n,
                     const PlacementContext&) const override {
    return 1000 - pack_score(st, pod, n);
  }
};

class TopologyScore final : public ScoreStage {
 public:
  std::string_view name() const override { return "topology"; }
  std::int64_t score(const CycleState& st, const PodInfo&, NodeId n,
                     const PlacementContext& ctx) const override {
    if (ctx.gang_nodes.empty()) return 0;  // the first member has no one to be close to
    const auto& nodes = st.snapshot().nodes();
    const auto& a = nodes[static_cast<std::size_t>(n)];
    // Topology::distance for two nodes: 0 same node, 1 same rack, 2 same switch, 3 only the spine.
    std::int64_t best = 3;
    for (const NodeId m : ctx.gang_nodes) {
      const auto& b = nodes[static_cast<std::size_t>(m)];
      const std::int64_t d = a.vertex == b.vertex                 ? 0
                             : a.rack_vertex == b.rack_vertex     ? 1
                             : a.switch_vertex == b.switch_vertex ? 2
                                                                  : 3;
      best = std::min(best, d);
      if (best == 0) break;
    }
    return (3 - best) * 1000 / 3;
  }
  // The walk reaches no node of a gang node's rack (they are the extra candidates below), so at
  // best a node shares a switch with one: distance 2, unless each of those switches holds a
  // single rack. Nodes never move between racks or switches (Topology::add_child refuses).
  std::int64_t max_score(const CycleState& st, const PodInfo&, const Reach&,
                         const PlacementContext& ctx) const override {
    const auto& snap = st.snapshot();
    std::int64_t bound = 0;
    for (const NodeId m : ctx.gang_nodes) {
      const auto& b = snap.nodes()[static_cast<std::size_t>(m)];
      if (b.rack == kNone) return 1000;  // not among the extras: the walk may reach it
      if (snap.topology().child_count(b.switch_vertex) > 1) bound = (3 - 2) * 1000 / 3;
    }
    return bound;
  }
  void extra_racks(const CycleState& st, const PodInfo&, const PlacementContext& ctx,
                   std::vector<std::int32_t>& out) const override {
    const auto& snap = st.snapshot();
    const auto mine = static_cast<std::ptrdiff_t>(out.size());
    for (const NodeId m : ctx.gang_nodes) {
      const auto rack = snap.nodes()[static_cast<std::size_t>(m)].rack;
      // A rack named by an earlier gang node is listed already (its nodes would only be skipped
      // as seen). Gangs sit in few racks, so the list stays short.
      if (rack == kNone || std::find(out.begin() + mine, out.end(), rack) != out.end()) continue;
      out.push_back(rack);
    }
  }
};

// ---- permit -----------------------------------------------------------------------------------

class Gang final : public PermitStage {
 public:
  std::string_view name() const override { return "gang"; }
  bool ready(const ClusterSnapshot& snap, const GroupInfo& g,
             std::span<const PodId> pending) const override {
    // §8.3: members are the group's pods except failed ones; here the pending pods plus those
    // already running or succeeded.
    const std::size_t others = static_cast<std::size_t>(g.n_bound + g.n_succeeded);
    if (pending.size() + others < static_cast<std::size_t>(g.min_member)) return false;
    for (const auto& role : g.roles) {
      std::int32_t n = 0;
      for (const PodId p : g.pods) {
        const auto& pod = snap.pods()[static_cast<std::size_t>(p)];
        if (pod.role != role.name) continue;
        if (pod.state == PodState::Bound || pod.state == PodState::Succeeded) ++n;
      }
      for (const PodId p : pending)
        if (snap.pods()[static_cast<std::size_t>(p)].role == role.name) ++n;
      if (n < role.min_member) return false;
    }
    return true;
  }
  bool permit(std::size_t wanted, std::size_t placed) const override { return placed == wanted; }
};

}  // namespace

std::unique_ptr<QueueSortStage> make_queue_sort_stage(std::string_view name,
                                                      const SchedulerOptions& o) {
  if (name == "queue-priority") return std::make_unique<QueuePriority>();
  if (name == "dominant-resource-share")
    return std::make_unique<DominantResourceShare>(o.drf_denominator);
  return nullptr;
}
std::unique_ptr<FilterStage> make_filter_stage(std::string_view name) {
  if (name == "node-ready") return std::make_unique<NodeReady>();
  if (name == "node-resources-fit") return std::make_unique<NodeResourcesFit>();
  if (name == "node-selector") return std::make_unique<NodeSelectorFilter>();
  if (name == "queue-node-selector") return std::make_unique<QueueNodeSelector>();
  return nullptr;
}
std::unique_ptr<ScoreStage> make_score_stage(std::string_view name) {
  if (name == "bin-pack") return std::make_unique<BinPack>();
  if (name == "spread") return std::make_unique<Spread>();
  if (name == "topology") return std::make_unique<TopologyScore>();
  return nullptr;
}
std::unique_ptr<PermitStage> make_permit_stage(std::string_view name) {
  if (name == "gang") return std::make_unique<Gang>();
  return nullptr;
}

}  // namespace t9k::scheduler
