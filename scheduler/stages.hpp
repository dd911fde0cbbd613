// The stages of a scheduling cycle as interfaces with named implementations (kube-scheduler's
// framework, reduced to what the T9k scheduler needs): queue sort, filter, score, permit. Bind is
// the emission of Binding decisions by the Scheduler itself. The option lists of
// SchedulerOptions name the implementations (docs/scheduler.md calls them plugins, as
// kube-scheduler's configuration does).
//
// Stages read the snapshot and the cycle's working state (CycleState: free resources after the
// placements made so far in this cycle) and never mutate either.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "scheduler/cycle_state.hpp"
#include "scheduler/options.hpp"
#include "scheduler/snapshot.hpp"

namespace t9k::scheduler {

// What the score stage knows about the placement in progress.
struct PlacementContext {
  std::span<const NodeId> gang_nodes;  // nodes already chosen for this gang in the trial
};

// What every node the free-GPU walk can still reach, and that passes the filters, has at least
// (ScoreStage::max_score).
struct Reach {
  std::int64_t free_gpu = 0;  // milli, as CycleState::free sees it
  std::int64_t free_cpu = 0;
};

class QueueSortStage {
 public:
  virtual ~QueueSortStage() = default;
  virtual std::string_view name() const = 0;
  // < 0: a goes first; > 0: b goes first; 0: no opinion.
  virtual int compare(const CycleState& st, QueueId a, QueueId b) const = 0;
};

class FilterStage {
 public:
  virtual ~FilterStage() = default;
  virtual std::string_view name() const = 0;
  virtual bool filter(const CycleState& st, const PodInfo& pod, const QueueInfo* queue,
                      NodeId node) const = 0;
};

class ScoreStage {
 public:
  virtual ~ScoreStage() = default;
  virtual std::string_view name() const = 0;
  // 0..1000, higher is better.
  virtual std::int64_t score(const CycleState& st, const PodInfo& pod, NodeId node,
                             const PlacementContext& ctx) const = 0;
  // An upper bound of score() over every node the free-GPU walk can still reach and that passes
  // the filters: it has at least what `reach` says free, and it is none of the extra candidates
  // (every plugin's, visited before the walk). The walk stops once no later node can beat the
  // best so far. The default is the contract's 1000, which never stops a walk.
  virtual std::int64_t max_score(const CycleState&, const PodInfo&, const Reach& /*reach*/,
                                 const PlacementContext&) const {
    return 1000;
  }
  // Racks whose nodes are worth considering before the free-GPU walk (e.g. the racks of the gang
  // so far), appended in order, each once: their nodes are considered rack by rack, in id order.
  // Racks, not nodes: a search that needs only the rack's nodes with room finds those from the
  // free-GPU index instead of looking at every node of a large rack (issue 49).
  virtual void extra_racks(const CycleState&, const PodInfo&, const PlacementContext&,
                           std::vector<std::int32_t>&) const {}
};

class PermitStage {
 public:
  virtual ~PermitStage() = default;
  virtual std::string_view name() const = 0;
  // May the group be tried at all, given its pending pods (§8.3 minMember and role minima)?
  virtual bool ready(const ClusterSnapshot& snap, const GroupInfo& group,
                     std::span<const PodId> pending) const = 0;
  // May a trial that placed `placed` of the `wanted` pods be committed?
  virtual bool permit(std::size_t wanted, std::size_t placed) const = 0;
};

std::unique_ptr<QueueSortStage> make_queue_sort_stage(std::string_view name,
                                                      const SchedulerOptions& o);
std::unique_ptr<FilterStage> make_filter_stage(std::string_view name);
std::unique_ptr<ScoreStage> make_score_stage(std::string_view name);
std::unique_ptr<PermitStage> make_permit_stage(std::string_view name);

}  // namespace t9k::scheduler
