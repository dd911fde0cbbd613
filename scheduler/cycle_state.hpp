// The working state of one scheduling cycle (CycleState): what the cycle's placements so far
// changed on the snapshot, the reservations each group must respect (§8.6 nomination), and,
// during a preemption trial, what victims would give back. The stages (stages.hpp) read it; the
// cycle (detail/cycle.hpp) changes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduler/max_tree.hpp"
#include "scheduler/options.hpp"
#include "scheduler/snapshot.hpp"

namespace t9k::scheduler {

// §8.6 nomination: resources reserved on a node for a pending preemptor group, from the
// snapshot (ClusterSnapshot::nominate) or from a preemption decided earlier in this cycle.
struct CycleReservation {
  GroupId group = kNone;
  QueueId queue = kNone;
  std::int32_t queue_priority = 0;
  GroupOrderKey rank{};  // the group's §8.5 position in its queue
  NodeId node = kNone;
  SparseRes amount;
  bool active = true;  // false once the group is placed or cannot use it this cycle
};

// Who is placing pods: decides which reservations count as used (see CycleState::set_viewer).
struct Viewer {
  bool lowest = true;  // default-scheduler pods: every reservation counts as used
  GroupId group = kNone;
  QueueId queue = kNone;
  std::int32_t queue_priority = 0;
  GroupOrderKey rank{};
};

// The cycle's overlay on the snapshot: free resources per node and allocation per queue after
// the placements this cycle has made (committed or in trial), plus, during a preemption trial, a
// "bonus" of resources that terminating pods and chosen victims would give back, minus the
// reservations (§8.6 nomination) of groups the current viewer does not outrank.
//
// Cost: a cycle touches few nodes, so the overlay stores only differences from the snapshot
// (taken, bonus, held per node x dim, zero elsewhere) and reset() undoes the rows the previous
// cycle touched, O(touched) rather than O(nodes). The free-GPU index is the snapshot's, merged on
// the fly with a small sorted list of the nodes whose free GPUs this cycle changed.
class CycleState {
 public:
  void reset(const ClusterSnapshot& snap);
  const ClusterSnapshot& snapshot() const { return *snap_; }
  // Counts the changes to what a search sees (takes and give-backs, reservations coming into
  // view, the bonus): between two equal counts a search repeated finds what it found before
  // (the cycle's uniform gang memo, issue 49). Never reset: counts from different cycles differ.
  std::uint64_t changes() const { return changes_; }

  // Outside a trial a reservation withholds only what the node's terminating pods will not give
  // back (they are already counted as used); in a trial, where the bonus returns them, all of it.
  std::int64_t free(NodeId n, Dim d) const {
    if (bonus_active_) return free_with_bonus(n, d);
    const std::size_t i = static_cast<std::size_t>(n) * dims_ + static_cast<std::size_t>(d);
    return snap_->nodes()[static_cast<std::size_t>(n)].free(d) - taken_[i] - hold_[i];
  }
  // free(n, GPU) as a preemption trial sees it (the bonus on).
  std::int64_t bonus_free_gpu(NodeId n) const { return free_with_bonus(n, kDimGpu); }
  bool fits(NodeId n, const SparseRes& r) const {
    for (const auto& [d, q] : r)
      if (free(n, d) < q) return false;
    return true;
  }
  // Takes (sign -1 gives back) a request from a node's free resources, keeping the index.
  void take(NodeId n, const SparseRes& r, std::int64_t sign = 1);

  // ---- Shared GPUs (pods requesting t9ksim.io/gpu-milli; docs/scheduler.md "Shared GPUs") ----
  // The node side of a share is by slot: this cycle keeps a copy of the slots of every node it
  // places a share on or gets one back from (in a trial), and free(n, GPU) stays "1000 x the
  // GPUs no one uses", the only GPU capacity a whole-GPU pod can have.
  // A pod fits: its other resources, and for a share a slot (share_slot).
  bool fits_pod(NodeId n, const PodInfo& p) const {
    return p.gpu_share == 0 ? fits(n, p.request)
                            : fits_share(n, p);  // inline: the filter's hot path
  }
  // Best fit of a share of g milli on node n in the current view: the used slot with the least
  // room left that holds it, else an unused slot if a whole GPU is free; {slot, room left after
  // placing it}, slot kNone when none. A node where the viewer sees a reservation (§8.6) offers
  // only whole free GPUs: the rooms of its used slots may be what the reservation waits for.
  std::pair<std::int32_t, std::int32_t> share_slot(NodeId n, std::int32_t g) const;
  // take() for a pod: a share takes the best-fit slot (remembered by pod for the give-back,
  // sign -1, and for the binding: slot_of).
  void take_pod(NodeId n, PodId id, const PodInfo& p, std::int64_t sign = 1);
  std::int32_t slot_of(PodId id) const { return pod_slot_[static_cast<std::size_t>(id)]; }
  // Nodes whose slots this cycle changed (their snapshot share_rooms() entries are stale).
  const std::vector<NodeId>& share_nodes() const { return share_nodes_; }
  bool share_changed(NodeId n) const { return share_row_[static_cast<std::size_t>(n)] >= 0; }
  // The free-GPU index after this cycle's placements (present nodes by (free GPU milli, id)):
  // the largest key, and walks in increasing order from `gpu` or decreasing down to `gpu`;
  // `f(node)` returns true to stop.
  std::optional<std::int64_t> max_free_gpu() const;
  // The least free(n, GPU) over the nodes where a reservation withholds GPUs from the viewer
  // (outside a trial), INT64_MAX when none does: every other node's free GPUs are its index key.
  std::int64_t min_withheld_free_gpu() const;
  // Outside a trial: the least free(n, CPU) >= `need` over the nodes this cycle took from or a
  // reservation withholds from (every other node's free CPU is the snapshot's); INT64_MAX for
  // none, and 0 (no bound) when there are too many such nodes to look at each time.
  std::int64_t least_changed_free_cpu(std::int64_t need) const;
  template <class F>
  void walk_up(std::int64_t gpu, F&& f) const;
  template <class F>
  void walk_down(std::int64_t gpu, F&& f) const;
  const DenseRes& queue_allocated(QueueId q) const {
    return queue_alloc_[static_cast<std::size_t>(q)];
  }
  void add_queue_allocated(QueueId q, const SparseRes& r, std::int64_t sign = 1) {
    add(queue_alloc_[static_cast<std::size_t>(q)], r, sign);
  }
  std::int64_t total_free(Dim d) const {
    return at(total_free_, d) + (bonus_active_ ? at(bonus_total_, d) : 0);
  }

  // Preemption trials.
  void add_bonus(NodeId n, const SparseRes& r, std::int64_t sign = 1);
  void add_bonus_dense(NodeId n, const DenseRes& r);
  void add_bonus_pod(const PodInfo& p, std::int64_t sign = 1);  // a victim on its node (and slot)
  void add_terminating_bonus(NodeId n);  // what the node's terminating pods give back
  void set_bonus_active(bool on) {
    bonus_active_ = on;
    ++changes_;
  }
  bool bonus_active() const { return bonus_active_; }
  const std::vector<NodeId>& bonus_nodes() const { return bonus_nodes_; }
  // The bonus nodes (in the order they joined) that have at least `gpu` free GPU milli with the
  // bonus on, each O(log bonus nodes): the others fail node-resources-fit for such a pod, so a
  // trial need not try them one by one. `f(node)` returns true to stop; returns whether it did.
  template <class F>
  bool walk_bonus(std::int64_t gpu, F&& f) const {
    bool stopped = false;
    bonus_gpu_.each_at_least(gpu, [&](std::size_t i) { return stopped = f(bonus_nodes_[i]); });
    return stopped;
  }
  void clear_bonus();

  // Nomination. The viewer sees as used every active reservation of another group it does not
  // outrank: a higher queue priority outranks; in the same queue an earlier §8.5 position does;
  // an equal queue priority in another queue does not (as kube-scheduler, which counts the
  // nominated pods of equal or higher priority).
  void set_viewer(const Viewer& v);
  // Changes whenever a new view may show more free resources than an earlier one (it no longer
  // holds some reservation the previous view held). Within one epoch the views only grow, like
  // the placements, so a request that failed earlier in the epoch fails now too (failure memos).
  std::int32_t view_epoch() const { return view_epoch_; }
  const std::vector<CycleReservation>& reservations() const { return reservations_; }
  bool has_reservation(GroupId g) const;
  void add_reservation(CycleReservation r);
  void release_reservations(GroupId g);  // deactivates every reservation of g

 private:
  using GpuKey = std::pair<std::int64_t, NodeId>;
  bool holds(const CycleReservation& r) const;
  void note_active(const CycleReservation& r);
  void refresh_view();
  void add_to_view();  // adds the reservations in view_added_ to the overlay
  struct ShareRow {
    std::vector<std::int32_t> used;  // by slot: the snapshot's share_used plus this cycle's shares
    std::vector<std::int32_t> back;  // by slot: what the trial's bonus gives back
    std::int32_t touched = 0;        // slots with used > 0
    std::int32_t touched_eff = 0;    // slots with used - back > 0
  };
  ShareRow& share_row(NodeId n);
  bool fits_share(NodeId n, const PodInfo& p) const;
  // With the bonus on, GPUs whose every share comes back are whole again.
  std::int64_t share_bonus(NodeId n, Dim d) const {
    if (d != kDimGpu) return 0;
    const std::int32_t r = share_row_[static_cast<std::size_t>(n)];
    if (r < 0) return 0;
    const auto& row = share_rows_[static_cast<std::size_t>(r)];
    return 1000 * static_cast<std::int64_t>(row.touched - row.touched_eff);
  }
  void add_share_back(NodeId n, std::int32_t slot_index, std::int32_t g);
  std::int64_t free_with_bonus(NodeId n, Dim d) const {
    const std::size_t i = static_cast<std::size_t>(n) * dims_ + static_cast<std::size_t>(d);
    return snap_->nodes()[static_cast<std::size_t>(n)].free(d) - taken_[i] + bonus_[i] - held_[i] +
           share_bonus(n, d);
  }
  void mark_bonus(NodeId n);   // n joins bonus_nodes_ (once)
  void bonus_touch(NodeId n);  // n's bonus_free_gpu may have changed: keep bonus_gpu_
  std::int64_t raw_free_gpu(NodeId n) const {
    return snap_->nodes()[static_cast<std::size_t>(n)].free(kDimGpu) -
           taken_[static_cast<std::size_t>(n) * dims_ + static_cast<std::size_t>(kDimGpu)];
  }

  const ClusterSnapshot* snap_ = nullptr;
  std::size_t dims_ = 0;
  std::size_t nodes_ = 0;  // rows allocated in the per-node arrays
  // Per node x dim, zero outside the rows listed in taken_nodes_ / bonus_nodes_ / held_nodes_.
  std::vector<std::int64_t> taken_;  // this cycle's placements (trial or committed)
  std::vector<char> taken_mark_;     // by node: in taken_nodes_
  std::vector<NodeId> taken_nodes_;
  std::vector<char> overlaid_;  // by node: its index key is in local_index_, not the snapshot's
  std::vector<GpuKey> local_index_;  // sorted: nodes whose free GPUs this cycle changed
  std::vector<std::int64_t> bonus_;
  std::vector<std::int32_t> bonus_pos_;  // by node: its position in bonus_nodes_, -1 for none
  std::vector<NodeId> bonus_nodes_;
  MaxTree bonus_gpu_;  // by position in bonus_nodes_: bonus_free_gpu
  DenseRes bonus_total_;
  bool bonus_active_ = false;
  std::vector<DenseRes> queue_alloc_;
  DenseRes total_free_;  // over schedulable nodes
  std::vector<CycleReservation> reservations_;
  Viewer viewer_;
  std::vector<std::int32_t> view_, view_scratch_, view_added_;  // indices of reservations held
  std::int32_t view_epoch_ = 0;
  bool view_is_all_ = true;  // view_ is every active reservation below view_upto_
  std::size_t view_upto_ = 0;
  std::vector<std::int32_t>
      group_active_;  // by GroupId: active reservations (zero outside reservations_)
  std::int32_t n_active_ = 0;
  std::int32_t min_qp_ = 0;                    // over active reservations
  std::map<QueueId, GroupOrderKey> max_rank_;  // per queue, over active reservations
  std::vector<std::int64_t> held_;  // by node × dim: reservations held against the viewer
  std::vector<std::int64_t> hold_;  // max(0, held - terminating)
  std::vector<char> held_mark_;     // by node: in held_nodes_
  std::vector<NodeId> held_nodes_;
  std::vector<std::int32_t> share_row_;  // by node: index into share_rows_, -1 for none
  std::vector<ShareRow> share_rows_;
  std::vector<NodeId> share_nodes_;
  std::vector<std::int32_t> pod_slot_;  // by PodId: the slot take_pod gave a share
  std::uint64_t changes_ = 0;
  // max_free_gpu()'s last answer and the changes() it was computed at (every change to the
  // free GPUs counts in changes_).
  mutable std::uint64_t max_free_at_ = ~std::uint64_t{0};
  mutable std::optional<std::int64_t> max_free_;
};

inline std::optional<std::int64_t> CycleState::max_free_gpu() const {
  // Asked once per group attempt: a deep queue asks thousands of times between two changes,
  // and each answer skips the overlaid nodes at the top of the snapshot's index (issue 49).
  if (max_free_at_ == changes_) return max_free_;
  max_free_at_ = changes_;
  std::optional<std::int64_t>& best = max_free_;
  best.reset();
  for (auto a = snap_->nodes_by_free_gpu().rbegin_cursor(); a.valid(); a.next())
    if (!overlaid_[static_cast<std::size_t>((*a).second)]) {
      best = (*a).first;
      break;
    }
  if (!local_index_.empty() && (!best || local_index_.back().first > *best))
    best = local_index_.back().first;
  return best;
}

// Both walks merge the snapshot's index (minus overlaid nodes) with local_index_: the node sets
// are disjoint, so the merged order is exactly that of one index holding every current key.
template <class F>
void CycleState::walk_up(std::int64_t gpu, F&& f) const {
  auto a = snap_->nodes_by_free_gpu().lower_bound(gpu);
  const GpuKey from{gpu, std::numeric_limits<NodeId>::min()};
  auto b = std::lower_bound(local_index_.begin(), local_index_.end(), from);
  for (;;) {
    while (a.valid() && overlaid_[static_cast<std::size_t>((*a).second)]) a.next();
    if (b != local_index_.end() && (!a.valid() || *b < *a)) {
      if (f(b->second)) return;
      ++b;
    } else if (a.valid()) {
      if (f((*a).second)) return;
      a.next();
    } else {
      return;
    }
  }
}

template <class F>
void CycleState::walk_down(std::int64_t gpu, F&& f) const {
  auto a = snap_->nodes_by_free_gpu().rbegin_cursor();
  auto b = local_index_.rbegin();
  for (;;) {
    while (a.valid() && overlaid_[static_cast<std::size_t>((*a).second)]) a.next();
    const bool a_ok = a.valid() && (*a).first >= gpu;
    const bool b_ok = b != local_index_.rend() && b->first >= gpu;
    if (b_ok && (!a_ok || *a < *b)) {
      if (f(b->second)) return;
      ++b;
    } else if (a_ok) {
      if (f((*a).second)) return;
      a.next();
    } else {
      return;
    }
  }
}

// Dominant resource share of a queue (§8.5, §11 Q18) as an exact fraction num/den.
struct Share {
  std::int64_t num = 0;
  std::int64_t den = 1;
};
Share dominant_share(const CycleState& st, QueueId q, DrfDenominator denominator);
int compare_shares(Share a, Share b);  // <0 when a < b

}  // namespace t9k::scheduler
