// FROZEN REFERENCE (test only): the scheduler's cycle as it was before the incremental rewrite
// (full per-cycle reset of the overlay, every pending group attempted). The equivalence test
// compares the production scheduler's decisions with it; do not optimise or change it.
// The stages of a scheduling cycle as interfaces with named implementations (kube-scheduler's
// framework, reduced to what the T9k scheduler needs): queue sort, filter, score, permit. Bind is
// the emission of Binding decisions by the Scheduler itself.
//
// Plugins read the snapshot and the cycle's working state (CycleState: free resources after the
// placements made so far in this cycle) and never mutate either.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduler/options.hpp"
#include "scheduler/snapshot.hpp"

namespace t9k::scheduler::reference {

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
class CycleState {
 public:
  void reset(const ClusterSnapshot& snap);
  const ClusterSnapshot& snapshot() const { return *snap_; }

  // Outside a trial a reservation withholds only what the node's terminating pods will not give
  // back (they are already counted as used); in a trial, where the bonus returns them, all of it.
  std::int64_t free(NodeId n, Dim d) const {
    const std::size_t i = static_cast<std::size_t>(n) * dims_ + static_cast<std::size_t>(d);
    return bonus_active_ ? free_[i] + bonus_[i] - held_[i] : free_[i] - hold_[i];
  }
  bool fits(NodeId n, const SparseRes& r) const {
    for (const auto& [d, q] : r)
      if (free(n, d) < q) return false;
    return true;
  }
  // Takes (sign -1 gives back) a request from a node's free resources, keeping the index.
  void take(NodeId n, const SparseRes& r, std::int64_t sign = 1);
  const std::set<std::pair<std::int64_t, NodeId>>& by_free_gpu() const { return by_free_gpu_; }
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
  void set_bonus_active(bool on) { bonus_active_ = on; }
  bool bonus_active() const { return bonus_active_; }
  const std::vector<NodeId>& bonus_nodes() const { return bonus_nodes_; }
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
  bool holds(const CycleReservation& r) const;
  void note_active(const CycleReservation& r);
  void refresh_view();
  void add_to_view();  // adds the reservations in view_added_ to the overlay

  const ClusterSnapshot* snap_ = nullptr;
  std::size_t dims_ = 0;
  std::vector<std::int64_t> free_;
  std::vector<std::int64_t> bonus_;
  std::vector<char> bonus_mark_;
  std::vector<NodeId> bonus_nodes_;
  DenseRes bonus_total_;
  bool bonus_active_ = false;
  std::vector<DenseRes> queue_alloc_;
  std::set<std::pair<std::int64_t, NodeId>> by_free_gpu_;
  DenseRes total_free_;  // over schedulable nodes
  std::vector<CycleReservation> reservations_;
  Viewer viewer_;
  std::vector<std::int32_t> view_, view_scratch_, view_added_;  // indices of reservations held
  std::int32_t view_epoch_ = 0;
  bool view_is_all_ = true;  // view_ is every active reservation below view_upto_
  std::size_t view_upto_ = 0;
  std::vector<std::int32_t> group_active_;  // by GroupId: active reservations
  std::int32_t n_active_ = 0;
  std::int32_t min_qp_ = 0;                    // over active reservations
  std::map<QueueId, GroupOrderKey> max_rank_;  // per queue, over active reservations
  std::vector<std::int64_t> held_;  // by node × dim: reservations held against the viewer
  std::vector<std::int64_t> hold_;  // max(0, held - terminating)
  std::vector<char> held_mark_;     // by node: in held_nodes_
  std::vector<NodeId> held_nodes_;
};

// What the score stage knows about the placement in progress.
struct PlacementContext {
  std::span<const NodeId> gang_nodes;  // nodes already chosen for this gang in the trial
};

class QueueSortPlugin {
 public:
  virtual ~QueueSortPlugin() = default;
  virtual std::string_view name() const = 0;
  // < 0: a goes first; > 0: b goes first; 0: no opinion.
  virtual int compare(const CycleState& st, QueueId a, QueueId b) const = 0;
};

class FilterPlugin {
 public:
  virtual ~FilterPlugin() = default;
  virtual std::string_view name() const = 0;
  virtual bool filter(const CycleState& st, const PodInfo& pod, const QueueInfo* queue,
                      NodeId node) const = 0;
};

class ScorePlugin {
 public:
  virtual ~ScorePlugin() = default;
  virtual std::string_view name() const = 0;
  // 0..1000, higher is better.
  virtual std::int64_t score(const CycleState& st, const PodInfo& pod, NodeId node,
                             const PlacementContext& ctx) const = 0;
  // Nodes worth considering before the free-GPU walk (e.g. the racks of the gang so far).
  virtual void extra_candidates(const CycleState&, const PodInfo&, const PlacementContext&,
                                std::vector<NodeId>&) const {}
};

class PermitPlugin {
 public:
  virtual ~PermitPlugin() = default;
  virtual std::string_view name() const = 0;
  // May the group be tried at all, given its pending pods (§8.3 minMember and role minima)?
  virtual bool ready(const ClusterSnapshot& snap, const GroupInfo& group,
                     std::span<const PodId> pending) const = 0;
  // May a trial that placed `placed` of the `wanted` pods be committed?
  virtual bool permit(std::size_t wanted, std::size_t placed) const = 0;
};

// Dominant resource share of a queue (§8.5, §11 Q18) as an exact fraction num/den.
struct Share {
  std::int64_t num = 0;
  std::int64_t den = 1;
};
Share dominant_share(const CycleState& st, QueueId q, DrfDenominator denominator);
int compare_shares(Share a, Share b);  // <0 when a < b

std::unique_ptr<QueueSortPlugin> make_queue_sort_plugin(std::string_view name,
                                                        const SchedulerOptions& o);
std::unique_ptr<FilterPlugin> make_filter_plugin(std::string_view name);
std::unique_ptr<ScorePlugin> make_score_plugin(std::string_view name);
std::unique_ptr<PermitPlugin> make_permit_plugin(std::string_view name);

}  // namespace t9k::scheduler::reference
