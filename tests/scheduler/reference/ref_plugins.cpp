// FROZEN REFERENCE (test only): the scheduler's cycle as it was before the incremental rewrite
// (full per-cycle reset of the overlay, every pending group attempted). The equivalence test
// compares the production scheduler's decisions with it; do not optimise or change it.
#include "reference/ref_plugins.hpp"

#include <algorithm>
#include <iterator>

namespace t9k::scheduler::reference {

__extension__ using Int128 = __int128;

// ---- CycleState -------------------------------------------------------------------------------

void CycleState::reset(const ClusterSnapshot& snap) {
  snap_ = &snap;
  dims_ = snap.resources().size();
  const auto& nodes = snap.nodes();
  free_.assign(nodes.size() * dims_, 0);
  total_free_.assign(dims_, 0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (std::size_t d = 0; d < dims_; ++d) {
      const std::int64_t f = nodes[n].free(static_cast<Dim>(d));
      free_[n * dims_ + d] = f;
      if (nodes[n].schedulable()) total_free_[d] += f;
    }
  }
  bonus_.assign(nodes.size() * dims_, 0);
  bonus_mark_.assign(nodes.size(), 0);
  bonus_nodes_.clear();
  bonus_total_.assign(dims_, 0);
  bonus_active_ = false;
  queue_alloc_.resize(snap.queues().size());
  for (std::size_t q = 0; q < snap.queues().size(); ++q)
    queue_alloc_[q] = snap.queues()[q].allocated;
  by_free_gpu_ = {snap.nodes_by_free_gpu().begin(), snap.nodes_by_free_gpu().end()};
  held_.assign(nodes.size() * dims_, 0);
  hold_.assign(nodes.size() * dims_, 0);
  held_mark_.assign(nodes.size(), 0);
  held_nodes_.clear();
  reservations_.clear();
  view_.clear();
  view_epoch_ = 0;
  view_is_all_ = true;
  view_upto_ = 0;
  viewer_ = Viewer{};
  group_active_.assign(snap.groups().size(), 0);
  n_active_ = 0;
  max_rank_.clear();
  for (const GroupId g : snap.nominated_groups()) {
    const auto& gi = snap.groups()[static_cast<std::size_t>(g)];
    if (!gi.present || gi.queue == kNone) continue;
    const auto& qi = snap.queues()[static_cast<std::size_t>(gi.queue)];
    if (!qi.present) continue;  // the group waits for its queue and cannot use anything
    for (const auto& [n, amount] : gi.nominated) {
      if (!nodes[static_cast<std::size_t>(n)].present) continue;
      reservations_.push_back(
          CycleReservation{g, gi.queue, qi.priority, gi.order_key(g), n, amount, true});
      note_active(reservations_.back());
    }
  }
}

bool CycleState::holds(const CycleReservation& r) const {
  if (!r.active) return false;
  if (viewer_.lowest) return true;
  if (r.group == viewer_.group) return false;  // the nominated group uses its own reservation
  if (viewer_.queue_priority != r.queue_priority) return viewer_.queue_priority < r.queue_priority;
  if (viewer_.queue != r.queue) return true;
  return r.rank < viewer_.rank;
}

void CycleState::set_viewer(const Viewer& v) {
  viewer_ = v;
  refresh_view();
}

void CycleState::note_active(const CycleReservation& r) {
  ++group_active_[static_cast<std::size_t>(r.group)];
  min_qp_ = n_active_++ == 0 ? r.queue_priority : std::min(min_qp_, r.queue_priority);
  auto [it, fresh] = max_rank_.try_emplace(r.queue, r.rank);
  if (!fresh && it->second < r.rank) it->second = r.rank;
}

void CycleState::refresh_view() {
  // Fast path, the usual case (groups come in rank order): the viewer holds every active
  // reservation, as it did at the previous view; only the ones added since are new.
  bool all = viewer_.lowest;
  if (!all && group_active_[static_cast<std::size_t>(viewer_.group)] == 0) {
    const auto same_queue = max_rank_.find(viewer_.queue);
    all = n_active_ == 0 || (viewer_.queue_priority <= min_qp_ &&
                             (same_queue == max_rank_.end() || same_queue->second < viewer_.rank));
  }
  if (all && view_is_all_) {
    view_added_.clear();
    for (std::size_t i = view_upto_; i < reservations_.size(); ++i)
      if (reservations_[i].active) view_added_.push_back(static_cast<std::int32_t>(i));
    view_upto_ = reservations_.size();
    add_to_view();
    view_.insert(view_.end(), view_added_.begin(),
                 view_added_.end());  // indices above the old ones
    return;
  }
  view_is_all_ = all;
  view_upto_ = reservations_.size();
  view_scratch_.clear();
  for (std::size_t i = 0; i < reservations_.size(); ++i)
    if (holds(reservations_[i])) view_scratch_.push_back(static_cast<std::int32_t>(i));
  if (view_scratch_ == view_) return;  // entries are append-only within a cycle: same overlay
  // Both lists are sorted. A view that keeps every reservation of the previous one only adds
  // (the usual case: groups come in rank order and each new preemptor adds one); otherwise the
  // overlay is rebuilt and a new epoch starts.
  const bool grows =
      std::includes(view_scratch_.begin(), view_scratch_.end(), view_.begin(), view_.end());
  view_added_.clear();
  if (grows) {
    std::set_difference(view_scratch_.begin(), view_scratch_.end(), view_.begin(), view_.end(),
                        std::back_inserter(view_added_));
  } else {
    ++view_epoch_;
    for (const NodeId n : held_nodes_) {
      const auto base = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(n) * dims_);
      std::fill_n(held_.begin() + base, static_cast<std::ptrdiff_t>(dims_), 0);
      std::fill_n(hold_.begin() + base, static_cast<std::ptrdiff_t>(dims_), 0);
      held_mark_[static_cast<std::size_t>(n)] = 0;
    }
    held_nodes_.clear();
    view_added_ = view_scratch_;
  }
  add_to_view();
  view_.swap(view_scratch_);
}

void CycleState::add_to_view() {
  for (const std::int32_t i : view_added_) {
    const auto& r = reservations_[static_cast<std::size_t>(i)];
    const std::size_t base = static_cast<std::size_t>(r.node) * dims_;
    auto& mark = held_mark_[static_cast<std::size_t>(r.node)];
    if (!mark) {
      mark = 1;
      held_nodes_.push_back(r.node);
    }
    for (const auto& [d, q] : r.amount)
      if (static_cast<std::size_t>(d) < dims_) held_[base + static_cast<std::size_t>(d)] += q;
    const auto& term = snap_->nodes()[static_cast<std::size_t>(r.node)].terminating;
    for (std::size_t d = 0; d < dims_; ++d)
      hold_[base + d] = std::max<std::int64_t>(0, held_[base + d] - at(term, static_cast<Dim>(d)));
  }
}

bool CycleState::has_reservation(GroupId g) const {
  return g != kNone && group_active_[static_cast<std::size_t>(g)] > 0;
}

void CycleState::add_reservation(CycleReservation r) {
  reservations_.push_back(std::move(r));
  note_active(reservations_.back());
  // The viewer's own reservations are never in its view; the next viewer picks them up.
  if (viewer_.lowest || reservations_.back().group != viewer_.group) refresh_view();
}

void CycleState::release_reservations(GroupId g) {
  if (!has_reservation(g)) return;
  group_active_[static_cast<std::size_t>(g)] = 0;
  n_active_ = 0;
  max_rank_.clear();
  for (auto& r : reservations_) {
    if (r.group == g) r.active = false;
    if (r.active) {
      --group_active_[static_cast<std::size_t>(r.group)];  // note_active counts it again
      note_active(r);
    }
  }
  view_is_all_ = false;  // the view may hold a released entry: the next refresh rebuilds
  if (viewer_.lowest || g != viewer_.group) refresh_view();  // own entries were never in the view
}

void CycleState::take(NodeId n, const SparseRes& r, std::int64_t sign) {
  const std::size_t base = static_cast<std::size_t>(n) * dims_;
  const bool indexed = snap_->nodes()[static_cast<std::size_t>(n)].present;
  if (indexed) by_free_gpu_.erase({free_[base + kDimGpu], n});
  const bool sched = snap_->nodes()[static_cast<std::size_t>(n)].schedulable();
  for (const auto& [d, q] : r) {
    free_[base + static_cast<std::size_t>(d)] -= sign * q;
    if (sched) total_free_[static_cast<std::size_t>(d)] -= sign * q;
  }
  if (indexed) by_free_gpu_.insert({free_[base + kDimGpu], n});
}

void CycleState::add_bonus(NodeId n, const SparseRes& r, std::int64_t sign) {
  if (!bonus_mark_[static_cast<std::size_t>(n)]) {
    bonus_mark_[static_cast<std::size_t>(n)] = 1;
    bonus_nodes_.push_back(n);
  }
  const std::size_t base = static_cast<std::size_t>(n) * dims_;
  const bool sched = snap_->nodes()[static_cast<std::size_t>(n)].schedulable();
  for (const auto& [d, q] : r) {
    bonus_[base + static_cast<std::size_t>(d)] += sign * q;
    if (sched) bonus_total_[static_cast<std::size_t>(d)] += sign * q;
  }
}

void CycleState::add_bonus_dense(NodeId n, const DenseRes& r) {
  SparseRes s;
  for (std::size_t d = 0; d < r.size(); ++d)
    if (r[d] != 0) s.emplace_back(static_cast<Dim>(d), r[d]);
  add_bonus(n, s);
}

void CycleState::clear_bonus() {
  for (const NodeId n : bonus_nodes_) {
    bonus_mark_[static_cast<std::size_t>(n)] = 0;
    std::fill_n(bonus_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(n) * dims_),
                static_cast<std::ptrdiff_t>(dims_), 0);
  }
  bonus_nodes_.clear();
  std::fill(bonus_total_.begin(), bonus_total_.end(), 0);
  bonus_active_ = false;
}

// ---- shares -----------------------------------------------------------------------------------

int compare_shares(Share a, Share b) {
  const Int128 l = static_cast<Int128>(a.num) * b.den;
  const Int128 r = static_cast<Int128>(b.num) * a.den;
  return l < r ? -1 : (l > r ? 1 : 0);
}

Share dominant_share(const CycleState& st, QueueId q, DrfDenominator denominator) {
  const auto& info = st.snapshot().queues()[static_cast<std::size_t>(q)];
  const auto& alloc = st.queue_allocated(q);
  Share best{0, 1};
  auto consider = [&](Dim d, std::int64_t den) {
    if (den <= 0) return;  // §11 Q18: a resource without quota is ignored
    const Share s{at(alloc, d), den};
    if (compare_shares(s, best) > 0) best = s;
  };
  if (denominator == DrfDenominator::Quota) {
    if (!info.has_quota) return best;
    for (const Dim d : info.quota_dims) consider(d, at(info.quota, d));
  } else {
    const auto& cap = st.snapshot().cluster_capacity();
    for (std::size_t d = 0; d < cap.size(); ++d) consider(static_cast<Dim>(d), cap[d]);
  }
  return best;
}

namespace {

// ---- queue sort -------------------------------------------------------------------------------

class QueuePriority final : public QueueSortPlugin {
 public:
  std::string_view name() const override { return "queue-priority"; }
  int compare(const CycleState& st, QueueId a, QueueId b) const override {
    const auto& qs = st.snapshot().queues();
    const auto pa = qs[static_cast<std::size_t>(a)].priority;
    const auto pb = qs[static_cast<std::size_t>(b)].priority;
    return pa > pb ? -1 : (pa < pb ? 1 : 0);  // §8.5: higher priority first
  }
};

class DominantResourceShare final : public QueueSortPlugin {
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

class NodeReady final : public FilterPlugin {
 public:
  std::string_view name() const override { return "node-ready"; }
  bool filter(const CycleState& st, const PodInfo&, const QueueInfo*, NodeId n) const override {
    return st.snapshot().nodes()[static_cast<std::size_t>(n)].schedulable();
  }
};

class NodeResourcesFit final : public FilterPlugin {
 public:
  std::string_view name() const override { return "node-resources-fit"; }
  bool filter(const CycleState& st, const PodInfo& pod, const QueueInfo*, NodeId n) const override {
    return st.fits(n, pod.request);
  }
};

class NodeSelectorFilter final : public FilterPlugin {
 public:
  std::string_view name() const override { return "node-selector"; }
  bool filter(const CycleState& st, const PodInfo& pod, const QueueInfo*, NodeId n) const override {
    return st.snapshot().selector_matches(pod.selector, n);
  }
};

class QueueNodeSelector final : public FilterPlugin {
 public:
  std::string_view name() const override { return "queue-node-selector"; }
  bool filter(const CycleState& st, const PodInfo&, const QueueInfo* q, NodeId n) const override {
    return q == nullptr || st.snapshot().selector_matches(q->selector, n);  // §8.2 nodeSelector
  }
};

// ---- scores -----------------------------------------------------------------------------------

// Utilisation after placement, 0..1000; a node without the resource counts as full so that a
// pod that does not need GPUs prefers nodes that have none to waste.
std::int64_t util_after(const CycleState& st, const PodInfo& pod, NodeId n, Dim d) {
  const std::int64_t alloc = at(st.snapshot().nodes()[static_cast<std::size_t>(n)].allocatable, d);
  if (alloc <= 0) return 1000;
  const std::int64_t free_after = std::max<std::int64_t>(0, st.free(n, d) - at(pod.request, d));
  return 1000 - static_cast<std::int64_t>(static_cast<Int128>(free_after) * 1000 / alloc);
}

std::int64_t pack_score(const CycleState& st, const PodInfo& pod, NodeId n) {
  return (7 * util_after(st, pod, n, kDimGpu) + 3 * util_after(st, pod, n, kDimCpu)) / 10;
}

class BinPack final : public ScorePlugin {
 public:
  std::string_view name() const override { return "bin-pack"; }
  std::int64_t score(const CycleState& st, const PodInfo& pod, NodeId n,
                     const PlacementContext&) const override {
    return pack_score(st, pod, n);  // least free GPUs (then CPU) after placement first
  }
};

class Spread final : public ScorePlugin {
 public:
  std::string_view name() const override { return "spread"; }
  std::int64_t score(const CycleState& st, const PodInfo& pod, NodeId n,
                     const PlacementContext&) const override {
    return 1000 - pack_score(st, pod, n);
  }
};

class TopologyScore final : public ScorePlugin {
 public:
  std::string_view name() const override { return "topology"; }
  std::int64_t score(const CycleState& st, const PodInfo&, NodeId n,
                     const PlacementContext& ctx) const override {
    if (ctx.gang_nodes.empty()) return 0;  // the first member has no one to be close to
    const auto& snap = st.snapshot();
    const auto& topo = snap.topology();
    const auto v = snap.nodes()[static_cast<std::size_t>(n)].vertex;
    std::size_t best = 3;
    for (const NodeId m : ctx.gang_nodes)
      best = std::min(best, topo.distance(snap.nodes()[static_cast<std::size_t>(m)].vertex, v));
    // 0 same node, 1 same rack, 2 same switch, 3 only the spine.
    return static_cast<std::int64_t>((3 - std::min<std::size_t>(best, 3)) * 1000 / 3);
  }
  void extra_candidates(const CycleState& st, const PodInfo&, const PlacementContext& ctx,
                        std::vector<NodeId>& out) const override {
    const auto& snap = st.snapshot();
    for (const NodeId m : ctx.gang_nodes) {
      const auto rack = snap.nodes()[static_cast<std::size_t>(m)].rack;
      if (rack == kNone) continue;
      for (const NodeId n : snap.racks()[static_cast<std::size_t>(rack)].nodes) out.push_back(n);
    }
  }
};

// ---- permit -----------------------------------------------------------------------------------

class Gang final : public PermitPlugin {
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

std::unique_ptr<QueueSortPlugin> make_queue_sort_plugin(std::string_view name,
                                                        const SchedulerOptions& o) {
  if (name == "queue-priority") return std::make_unique<QueuePriority>();
  if (name == "dominant-resource-share")
    return std::make_unique<DominantResourceShare>(o.drf_denominator);
  return nullptr;
}
std::unique_ptr<FilterPlugin> make_filter_plugin(std::string_view name) {
  if (name == "node-ready") return std::make_unique<NodeReady>();
  if (name == "node-resources-fit") return std::make_unique<NodeResourcesFit>();
  if (name == "node-selector") return std::make_unique<NodeSelectorFilter>();
  if (name == "queue-node-selector") return std::make_unique<QueueNodeSelector>();
  return nullptr;
}
std::unique_ptr<ScorePlugin> make_score_plugin(std::string_view name) {
  if (name == "bin-pack") return std::make_unique<BinPack>();
  if (name == "spread") return std::make_unique<Spread>();
  if (name == "topology") return std::make_unique<TopologyScore>();
  return nullptr;
}
std::unique_ptr<PermitPlugin> make_permit_plugin(std::string_view name) {
  if (name == "gang") return std::make_unique<Gang>();
  return nullptr;
}

}  // namespace t9k::scheduler::reference
