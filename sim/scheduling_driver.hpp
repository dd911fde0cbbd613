// The scheduling driver: runs the scheduler (scheduler/, T9k or default) over its snapshot.
// The snapshot follows the store (this driver is the store's watcher, as kube-scheduler's cache
// follows informers). A scheduling cycle runs one scheduling latency after the first change that
// could let a pod be placed (pods and PodGroups created, resources released, nodes and queues
// back) and at each queue maxDuration expiry (§8.8). A cycle's bindings go to the store and the
// kubelet; its evictions delete pods (preemption: the preemptor's room is reserved) or, for
// maxDuration, fail them (§11 Q12). Admission of a submitted job is the scheduler's too.
//
// Owns: the scheduler, its snapshot, the pending cycle and the maxDuration timer.
// Handles: kCycle.
// Offers: CycleTrigger (sim/interfaces.hpp), StoreWatcher.
// Calls: Store (bindings, queues), PodLifecycle (start, delete, fail), ReconcileQueue.
// Checks: no gang partially admitted, no queue over quota (issue 6 §8).
// Publishes: JobPending, why a job none of whose pods is bound waits (the scheduler's pending
// reasons; docs/outputs.md "Why jobs waited").
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernel/chunked_pool.hpp"
#include "model/shared.hpp"
#include "model/text.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/snapshot.hpp"
#include "sim/common.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

class SchedulingDriver final : public kernel::EventHandler,
                               public StoreWatcher,
                               public CycleTrigger,
                               public WaitReasons {
 public:
  SchedulingDriver(const scenarios::Scenario& scenario, const WorldSettings& settings,
                   kernel::Kernel& kernel, Store& store, PodLifecycle& pods,
                   ReconcileQueue& reconciles);

  static constexpr EventKind kKinds[] = {kCycle};
  void handle(const kernel::DispatchedEvent& event) override;

  // The scenario's queues, and "default" unless it defines one (§8.2).
  void add_queues();
  // CycleTrigger
  void request_cycle() override;
  // At the end of the run: the last reason of every job still waiting.
  void finish();
  // The initial state (docs/forecast.md): the job's pods are bound to these nodes (pod name,
  // node) in the next cycle, before the scheduler runs, if every pod it has then is named and
  // fits; otherwise the scheduler places the job and notes() says why.
  void pin(JobId job, std::vector<std::pair<std::string, std::string>> pods);
  // What the run could not do as the scenario asked (a pinned job the scheduler had to place).
  const std::vector<std::string>& notes() const { return notes_; }
  // Whether the job's queue admits it (exists, open, quota at admission); nullopt: admitted.
  std::optional<scheduler::Rejection> admit(JobId job) const;

  // StoreWatcher: the snapshot follows every change; some changes ask for a cycle.
  void node_changed(const model::Node& node) override { snap_.upsert_node(node); }
  void node_removed(const std::string& name) override { snap_.remove_node(name); }
  void queue_changed(const model::Queue& queue) override { snap_.upsert_queue(queue); }
  std::int32_t pod_group_changed(const model::PodGroup& group, std::int32_t hint) override;
  void pod_group_removed(const std::string& key, std::int32_t hint) override {
    snap_.remove_pod_group(key, hint);
  }
  std::int32_t pod_created(const model::Pod& pod, const model::Text& key,
                           std::int32_t group_hint) override;
  void pod_bound(const std::string& key, const std::string& node, std::int32_t gpu_slot,
                 SnapshotIds ids) override {
    // A binding of this scheduler's cycle names its snapshot ids (checked by the snapshot).
    if (ids.pod != scheduler::kNone)
      snap_.bind(ids.pod, ids.node, key, node, gpu_slot);
    else
      snap_.bind(key, node, gpu_slot);
  }
  void pod_terminating(const std::string& key, std::int32_t hint) override {
    snap_.evict(key, hint);
  }
  void pod_released(const std::string& key) override;
  void pod_terminated(const std::string& key, bool succeeded, std::int32_t hint) override {
    snap_.release(key, succeeded, hint);
  }
  void pod_removed(const std::string& key) override { snap_.remove_pod(key); }
  // WaitReasons
  std::optional<model::PendingCause> pending_cause(JobId job) const override;

 private:
  void cycle();
  void bind_pinned();
  void arm_max_duration();
  void check_after_bindings(const scheduler::Decisions& d, const std::set<JobId>& admitted);
  void note_pending(const std::vector<scheduler::PendingReason>& reasons);
  void catch_up(const std::vector<scheduler::PendingReason>& reasons);
  std::optional<JobId> owner_of(const scheduler::PendingReason& r);
  void placed(JobId id);  // the job's first pod is bound: its wait is over

  // Per job, the wait the scheduler last reported (only while none of its pods is bound).
  struct Waiting {  // small fields last: one per waiting job
    scheduler::PendingReason last;
    model::Text message;      // describe(last), formatted only when published or pinned
    std::uint64_t cycle = 0;  // the last cycle that gave the job a reason
    bool active = false;
    bool dirty = false;  // `last` differs from what was published (same cause)
    bool lazy = false;   // the scheduler may pass it by (ClusterSnapshot::set_lazy)
  };
  Waiting& waiting(JobId id);                 // made if absent
  const Waiting* waiting_of(JobId id) const;  // nullptr: the job does not wait
  Waiting* waiting_of(JobId id) {
    return const_cast<Waiting*>(std::as_const(*this).waiting_of(id));
  }
  void publish_pending(JobId id, Waiting& w);

  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  Store& store_;
  PodLifecycle& pods_;
  ReconcileQueue& reconciles_;
  scheduler::Scheduler sched_;
  scheduler::ClusterSnapshot snap_;
  bool cycle_pending_ = false;
  kernel::EventHandle max_duration_ev_;
  SimTime max_duration_at_ = kernel::kTimeMax;
  // By JobId, the slot in waiting_ of a job that waits (kNoSlot: none); a placed job's slot is
  // reused, so memory follows the waiting jobs, not all jobs; in chunks, so growth never holds
  // two arrays at once (the backlog's peak fell during such a copy: issue 49).
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> waiting_slot_;
  kernel::ChunkedPool<Waiting> waiting_;
  // The messages made last: thousands of waiting jobs share the few a deep queue gives
  // ("0/813 nodes are available: 813 insufficient nvidia.com/gpu"), and so do their rows.
  model::RecentValues<model::Text, 8, model::Text> messages_;
  std::uint64_t cycles_ = 0;
  // By snapshot GroupId: the job of the group with that creation sequence (owner_of).
  struct GroupOwner {
    std::uint64_t sequence = 0;
    std::optional<JobId> job;
  };
  std::vector<GroupOwner> group_owner_;
  std::map<JobId, std::vector<std::pair<std::string, std::string>>>
      pins_;  // until their first cycle
  std::vector<std::string> notes_;
};

}  // namespace t9k::sim
