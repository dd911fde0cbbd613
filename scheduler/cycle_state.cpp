#include "scheduler/cycle_state.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace t9k::scheduler {

__extension__ using Int128 = __int128;

// ---- CycleState -------------------------------------------------------------------------------

void CycleState::reset(const ClusterSnapshot& snap) {
  ++changes_;
  snap_ = &snap;
  const std::size_t dims = snap.resources().size();
  const std::size_t nodes = snap.nodes().size();
  if (dims != dims_) {
    // A new resource dimension changes the row stride: start over (rare: first cycle, or the
    // first pod or node naming an extended resource).
    dims_ = dims;
    nodes_ = 0;
    taken_.clear();
    bonus_.clear();
    held_.clear();
    hold_.clear();
    taken_mark_.clear();
    overlaid_.clear();
    bonus_pos_.clear();
    held_mark_.clear();
    taken_nodes_.clear();
    bonus_nodes_.clear();
    held_nodes_.clear();
  }
  // Undo the rows the previous cycle touched; node ids are stable, so they still name the same
  // rows. Everything else is zero already.
  const auto zero_rows = [this](std::vector<std::int64_t>& v, const std::vector<NodeId>& rows) {
    for (const NodeId n : rows)
      std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(n) * dims_),
                  static_cast<std::ptrdiff_t>(dims_), 0);
  };
  zero_rows(taken_, taken_nodes_);
  for (const NodeId n : taken_nodes_) {
    taken_mark_[static_cast<std::size_t>(n)] = 0;
    overlaid_[static_cast<std::size_t>(n)] = 0;
  }
  taken_nodes_.clear();
  local_index_.clear();
  zero_rows(bonus_, bonus_nodes_);
  for (const NodeId n : bonus_nodes_) bonus_pos_[static_cast<std::size_t>(n)] = -1;
  bonus_nodes_.clear();
  bonus_gpu_.clear();
  zero_rows(held_, held_nodes_);
  zero_rows(hold_, held_nodes_);
  for (const NodeId n : held_nodes_) held_mark_[static_cast<std::size_t>(n)] = 0;
  held_nodes_.clear();
  if (nodes > nodes_) {  // nodes are only ever added: grow with zero rows
    nodes_ = nodes;
    taken_.resize(nodes * dims_, 0);
    bonus_.resize(nodes * dims_, 0);
    held_.resize(nodes * dims_, 0);
    hold_.resize(nodes * dims_, 0);
    taken_mark_.resize(nodes, 0);
    overlaid_.resize(nodes, 0);
    bonus_pos_.resize(nodes, -1);
    held_mark_.resize(nodes, 0);
  }
  for (const NodeId n : share_nodes_) share_row_[static_cast<std::size_t>(n)] = -1;
  share_nodes_.clear();
  share_rows_.clear();
  if (share_row_.size() < nodes) share_row_.resize(nodes, -1);
  if (pod_slot_.size() < snap.pods().size()) pod_slot_.resize(snap.pods().size(), kNone);
  total_free_.assign(snap.schedulable_free().begin(), snap.schedulable_free().end());
  total_free_.resize(dims_, 0);
  bonus_total_.assign(dims_, 0);
  bonus_active_ = false;
  queue_alloc_.resize(snap.queues().size());
  for (std::size_t q = 0; q < snap.queues().size(); ++q)
    queue_alloc_[q] = snap.queues()[q].allocated;
  for (const auto& r : reservations_) group_active_[static_cast<std::size_t>(r.group)] = 0;
  group_active_.resize(snap.groups().size(), 0);
  reservations_.clear();
  view_.clear();
  view_epoch_ = 0;
  view_is_all_ = true;
  view_upto_ = 0;
  viewer_ = Viewer{};
  n_active_ = 0;
  max_rank_.clear();
  const auto& node_infos = snap.nodes();
  for (const GroupId g : snap.nominated_groups()) {
    const auto& gi = snap.groups()[static_cast<std::size_t>(g)];
    if (!gi.present || gi.queue == kNone) continue;
    const auto& qi = snap.queues()[static_cast<std::size_t>(gi.queue)];
    if (!qi.present) continue;  // the group waits for its queue and cannot use anything
    for (const auto& [n, amount] : gi.nominated) {
      if (!node_infos[static_cast<std::size_t>(n)].present) continue;
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
  // No reservation in this cycle (the usual case): nothing to hold, and what the full path
  // below would conclude (an empty view of every reservation) is what is there.
  if (reservations_.empty() && view_.empty()) {
    view_is_all_ = true;
    view_upto_ = 0;
    return;
  }
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
    ++changes_;
    for (const NodeId n : held_nodes_) {
      const auto base = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(n) * dims_);
      std::fill_n(held_.begin() + base, static_cast<std::ptrdiff_t>(dims_), 0);
      std::fill_n(hold_.begin() + base, static_cast<std::ptrdiff_t>(dims_), 0);
      held_mark_[static_cast<std::size_t>(n)] = 0;
      bonus_touch(n);
    }
    held_nodes_.clear();
    view_added_ = view_scratch_;
  }
  add_to_view();
  view_.swap(view_scratch_);
}

void CycleState::add_to_view() {
  if (!view_added_.empty()) ++changes_;
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
    bonus_touch(r.node);
  }
}

std::int64_t CycleState::min_withheld_free_gpu() const {
  std::int64_t least = std::numeric_limits<std::int64_t>::max();
  for (const NodeId n : held_nodes_)
    if (hold_[static_cast<std::size_t>(n) * dims_ + static_cast<std::size_t>(kDimGpu)] > 0)
      least = std::min(least, free(n, kDimGpu));
  return least;
}

std::int64_t CycleState::least_changed_free_cpu(std::int64_t need) const {
  // Bounded work per search: a cycle that touched many nodes gives up the CPU bound instead.
  constexpr std::size_t kMaxScan = 64;
  if (taken_nodes_.size() + held_nodes_.size() > kMaxScan) return 0;
  std::int64_t least = std::numeric_limits<std::int64_t>::max();
  for (const auto* list : {&taken_nodes_, &held_nodes_})
    for (const NodeId n : *list) {
      const std::int64_t f = free(n, kDimCpu);
      if (f >= need) least = std::min(least, f);
    }
  return least;
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
  ++changes_;
  const std::size_t row = static_cast<std::size_t>(n);
  const std::size_t base = row * dims_;
  const auto& info = snap_->nodes()[row];
  if (!taken_mark_[row]) {
    taken_mark_[row] = 1;
    taken_nodes_.push_back(n);
  }
  const bool indexed = info.present;
  if (indexed && overlaid_[row]) {
    const GpuKey old{raw_free_gpu(n), n};
    local_index_.erase(std::lower_bound(local_index_.begin(), local_index_.end(), old));
    overlaid_[row] = 0;
  }
  const bool sched = info.schedulable();
  bool zero = true;
  for (const auto& [d, q] : r) {
    taken_[base + static_cast<std::size_t>(d)] += sign * q;
    if (sched) total_free_[static_cast<std::size_t>(d)] -= sign * q;
  }
  for (std::size_t d = 0; d < dims_ && zero; ++d) zero = taken_[base + d] == 0;
  // A row back at zero (a rolled-back trial) reads the snapshot's index entry again, which keeps
  // local_index_ to the nodes this cycle really changed.
  if (indexed && !zero) {
    const GpuKey key{raw_free_gpu(n), n};
    local_index_.insert(std::lower_bound(local_index_.begin(), local_index_.end(), key), key);
    overlaid_[row] = 1;
  }
  bonus_touch(n);
}

void CycleState::mark_bonus(NodeId n) {
  auto& pos = bonus_pos_[static_cast<std::size_t>(n)];
  if (pos >= 0) return;
  pos = static_cast<std::int32_t>(bonus_nodes_.size());
  bonus_nodes_.push_back(n);
  bonus_gpu_.push(MaxTree::kLowest);  // bonus_touch sets it once the bonus is added
}

void CycleState::bonus_touch(NodeId n) {
  const std::int32_t pos = bonus_pos_[static_cast<std::size_t>(n)];
  if (pos >= 0) bonus_gpu_.set(static_cast<std::size_t>(pos), bonus_free_gpu(n));
}

void CycleState::add_bonus(NodeId n, const SparseRes& r, std::int64_t sign) {
  ++changes_;
  mark_bonus(n);
  const std::size_t base = static_cast<std::size_t>(n) * dims_;
  const bool sched = snap_->nodes()[static_cast<std::size_t>(n)].schedulable();
  for (const auto& [d, q] : r) {
    bonus_[base + static_cast<std::size_t>(d)] += sign * q;
    if (sched) bonus_total_[static_cast<std::size_t>(d)] += sign * q;
  }
  bonus_touch(n);
}

void CycleState::add_bonus_dense(NodeId n, const DenseRes& r) {
  ++changes_;
  mark_bonus(n);
  const std::size_t base = static_cast<std::size_t>(n) * dims_;
  const bool sched = snap_->nodes()[static_cast<std::size_t>(n)].schedulable();
  for (std::size_t d = 0; d < r.size() && d < dims_; ++d) {
    bonus_[base + d] += r[d];
    if (sched) bonus_total_[d] += r[d];
  }
  bonus_touch(n);
}

void CycleState::clear_bonus() {
  ++changes_;
  for (auto& row : share_rows_) {
    std::fill(row.back.begin(), row.back.end(), 0);
    row.touched_eff = row.touched;
  }
  for (const NodeId n : bonus_nodes_) {
    bonus_pos_[static_cast<std::size_t>(n)] = -1;
    std::fill_n(bonus_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(n) * dims_),
                static_cast<std::ptrdiff_t>(dims_), 0);
  }
  bonus_nodes_.clear();
  bonus_gpu_.clear();
  std::fill(bonus_total_.begin(), bonus_total_.end(), 0);
  bonus_active_ = false;
}

// ---- shared GPUs ------------------------------------------------------------------------------

CycleState::ShareRow& CycleState::share_row(NodeId n) {
  auto& r = share_row_[static_cast<std::size_t>(n)];
  if (r < 0) {
    const auto& node = snap_->nodes()[static_cast<std::size_t>(n)];
    r = static_cast<std::int32_t>(share_rows_.size());
    share_rows_.push_back(ShareRow{node.share_used,
                                   std::vector<std::int32_t>(node.share_used.size(), 0),
                                   node.shared_slots, node.shared_slots});
    share_nodes_.push_back(n);
  }
  return share_rows_[static_cast<std::size_t>(r)];
}

std::pair<std::int32_t, std::int32_t> CycleState::share_slot(NodeId n, std::int32_t g) const {
  const std::size_t gpu = static_cast<std::size_t>(n) * dims_ + static_cast<std::size_t>(kDimGpu);
  const bool reserved = bonus_active_ ? held_[gpu] > 0 : hold_[gpu] > 0;
  const std::int32_t r = share_row_[static_cast<std::size_t>(n)];
  static const std::vector<std::int32_t> kNoBack;
  const ShareRow* row = r >= 0 ? &share_rows_[static_cast<std::size_t>(r)] : nullptr;
  const SlotFit fit = best_fit_slot(
      row ? row->used : snap_->nodes()[static_cast<std::size_t>(n)].share_used,
      bonus_active_ && row ? row->back : kNoBack, g, !reserved, free(n, kDimGpu) >= 1000);
  return {fit.slot, fit.room_after};
}

bool CycleState::fits_share(NodeId n, const PodInfo& p) const {
  for (const auto& [d, q] : p.request)
    if (d != kDimGpu && free(n, d) < q) return false;
  return share_slot(n, p.gpu_share).first != kNone;
}

void CycleState::take_pod(NodeId n, PodId id, const PodInfo& p, std::int64_t sign) {
  ++changes_;
  if (p.gpu_share == 0) {
    take(n, p.request, sign);
    return;
  }
  const std::int32_t s =
      sign > 0 ? share_slot(n, p.gpu_share).first : pod_slot_[static_cast<std::size_t>(id)];
  if (s == kNone)
    throw std::logic_error("CycleState::take_pod: no GPU slot holds the share of " + p.key.str());
  auto& row = share_row(n);
  auto& used = row.used[static_cast<std::size_t>(s)];
  const std::int32_t back = row.back[static_cast<std::size_t>(s)];
  const bool was_used = used > 0, was_eff = used - back > 0;
  used += static_cast<std::int32_t>(sign) * p.gpu_share;
  const std::int32_t d_used =
      static_cast<std::int32_t>(used > 0) - static_cast<std::int32_t>(was_used);
  row.touched += d_used;
  row.touched_eff +=
      static_cast<std::int32_t>(used - back > 0) - static_cast<std::int32_t>(was_eff);
  // The node-side footprint: the other resources, and a whole GPU when the slot became used.
  SparseRes r;
  for (const auto& [d, q] : p.request)
    if (d != kDimGpu) r.emplace_back(d, sign * q);
  if (d_used != 0) r.emplace_back(kDimGpu, 1000 * static_cast<std::int64_t>(d_used));
  std::sort(r.begin(), r.end());
  take(n, r, 1);
  if (sign > 0) pod_slot_[static_cast<std::size_t>(id)] = s;
}

void CycleState::add_share_back(NodeId n, std::int32_t slot_index, std::int32_t g) {
  ++changes_;
  auto& row = share_row(n);
  const auto i = static_cast<std::size_t>(slot_index);
  if (i >= row.used.size()) return;
  const bool was_eff = row.used[i] - row.back[i] > 0;
  row.back[i] += g;
  row.touched_eff +=
      static_cast<std::int32_t>(row.used[i] - row.back[i] > 0) - static_cast<std::int32_t>(was_eff);
  bonus_touch(n);
}

void CycleState::add_bonus_pod(const PodInfo& p, std::int64_t sign) {
  ++changes_;
  if (p.gpu_share == 0) {
    add_bonus(p.node, p.request, sign);
    return;
  }
  SparseRes r;
  for (const auto& [d, q] : p.request)
    if (d != kDimGpu) r.emplace_back(d, q);
  add_bonus(p.node, r, sign);  // marks the node as a bonus node even when r is empty
  if (p.gpu_slot != kNone)
    add_share_back(p.node, p.gpu_slot, static_cast<std::int32_t>(sign) * p.gpu_share);
}

void CycleState::add_terminating_bonus(NodeId n) {
  ++changes_;
  const auto& node = snap_->nodes()[static_cast<std::size_t>(n)];
  add_bonus_dense(n, node.terminating);
  for (std::size_t i = 0; i < node.share_terminating.size(); ++i)
    if (node.share_terminating[i] != 0)
      add_share_back(n, static_cast<std::int32_t>(i), node.share_terminating[i]);
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

}  // namespace t9k::scheduler
