// The scheduler: decision code behind a narrow boundary (design.md, "Dependency rules").
//
//   Decisions Scheduler::schedule(const ClusterSnapshot&, SimTime now)
//   std::optional<Rejection> Scheduler::admit(const ClusterSnapshot&, const AdmissionRequest&)
//
// One cycle, in order:
//   1. maxDuration (§8.8): every live T9k pod whose age (now - creation) has reached its queue's
//      maxDuration is evicted with reason MaxDuration.
//   2. T9k scheduler (pods with schedulerName t9k-scheduler, §8): queues ranked by the queue-sort
//      plugins (priority, then dominant resource share); each pop takes the queue's next pending
//      PodGroup (higher priority, then earlier creation), checks quota, gang readiness (permit),
//      places the minMember core all-or-nothing through filter and score, then the surplus one
//      by one; a group that cannot be placed may preempt (when enabled).
//   3. Default scheduler (every other pod): pod by pod in order of pod priority then creation,
//      the same filter and score plugins, no gang, no queue, no quota, no preemption.
// The world applies the decisions in order: each Binding with ClusterSnapshot::bind, each
// Eviction by deleting the pod (ClusterSnapshot::evict while it terminates, remove_pod once
// gone), then, for an Eviction with reason Preemption,
//     snapshot.nominate(e.preemptor, e.reservations);
// A preempting group is not bound in the cycle that evicts its victims: it is placed by a later
// cycle, once the victims have released their resources. Meanwhile (§8.6 nomination) its planned
// placement is reserved: lower-ranked work counts it as used, so nothing it outranks takes the
// resources its victims free (which would be preempted again: a bind/preempt/recreate livelock);
// and resources still held by terminating pods count for it, so it does not preempt again while
// its victims terminate. The reservation ends when the group is placed (the snapshot drops it)
// or, in any cycle, when the group cannot use it (the scheduler ignores it).
//
// Deterministic: no clock, no randomness, no iteration over hash maps. Same snapshot and `now`
// give the same decisions. The Scheduler keeps scratch buffers between cycles (hence
// non-const schedule()), never state that changes a decision.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/change.hpp"
#include "model/cluster.hpp"
#include "scheduler/options.hpp"
#include "scheduler/snapshot.hpp"

namespace t9k::scheduler {

struct Binding {
  std::string pod;   // pod key
  std::string node;  // node name
  // A shared-GPU pod: the slot of the node's GPUs it shares (model::Pod::gpu_index); else -1.
  std::int32_t gpu_slot = -1;
  // The snapshot's ids of the pod and node when the binding was decided, so the world applying
  // it need not look the names up again (ClusterSnapshot::bind checks they still name them).
  // Not part of the decision: equality is by names and slot.
  PodId pod_id = kNone;
  NodeId node_id = kNone;
  bool operator==(const Binding& o) const {
    return pod == o.pod && node == o.node && gpu_slot == o.gpu_slot;
  }
};

struct Eviction {
  std::string pod;
  model::DeletionReason reason = model::DeletionReason::Preemption;  // Preemption | MaxDuration
  std::string message;  // e.g. "preempted by team/job-d2 of queue D (priority 2)"
  // Preemption only (empty for MaxDuration):
  std::string preemptor;  // the preempting PodGroup's snapshot key (GroupInfo::key)
  std::string node;       // the node the victim frees
  // The preemptor's whole planned placement of this cycle, the same in each of its evictions:
  // what ClusterSnapshot::nominate(preemptor, reservations) reserves (§8.6 nomination).
  std::vector<NodeReservation> reservations;
  bool operator==(const Eviction&) const = default;
};

enum class RejectReason { QueueNotFound, QueueClosed, QuotaExceeded };
std::string_view to_string(RejectReason r);

struct Rejection {
  std::string pod_group;
  RejectReason reason = RejectReason::QueueNotFound;
  std::string message;
  bool operator==(const Rejection&) const = default;
};

// Why a pending workload was not placed in a cycle (docs/scheduler.md "Why is this job
// pending?"), in the spirit of kube-scheduler's FailedScheduling event. Counts, not strings: a
// cycle reports the workloads whose reason changed, and the world formats a message (describe)
// only when it publishes one.
using model::PendingCause;

// Of the last pod that found no node: how many nodes turned it away, and why. A node counts once
// per reason, so a node short of both GPUs and memory counts in both (as kube-scheduler's
// message); nodes never looked at (their free GPUs are below the request) count as short of GPUs.
struct NodeTally {
  std::int32_t nodes = 0;           // nodes in the cluster (present)
  std::int32_t not_ready = 0;       // not Ready, or cordoned (node-ready)
  std::int32_t selector = 0;        // the pod's nodeSelector / affinity does not match
  std::int32_t queue_selector = 0;  // the queue's nodeSelector does not match (§8.2)
  std::int32_t gpu = 0;  // insufficient GPUs (whole GPUs, or no GPU with room for a share)
  std::int32_t cpu = 0;
  std::int32_t memory = 0;
  std::int32_t extended = 0;  // short of another resource (amd.com/gpu, rdma/hca, ...)
  Dim extended_dim = kNone;   // that resource, when every such node lacks the same one
  std::int32_t other = 0;     // turned away by other filters (plugged-in ones)
  bool operator==(const NodeTally&) const = default;
};

struct PendingReason {
  GroupId group = kNone;       // the T9k PodGroup (snapshot id); kNone for a default-scheduler pod
  PodId pod = kNone;           // the default-scheduler pod; kNone for a T9k group
  std::uint64_t sequence = 0;  // the workload's creation sequence (ids are reused, sequences not)
  bool continued = false;      // the same workload was pending in the previous cycle
  PendingCause cause = PendingCause::Capacity;
  NodeTally nodes;        // Capacity, Constraints, Preempting
  std::int32_t pods = 0;  // pods tried together (a gang core), or pods existing (GangMembers)
  std::int32_t placed =
      0;  // pods of the core placed before one found no node; minMember (GangMembers)
  Dim quota_dim = kDimGpu;  // Quota: the first resource over quota
  std::int64_t quota_used = 0, quota_asked = 0, quota_limit = 0;  // ResourceTable::amount units
  GroupId ahead = kNone;  // QueueOrder: the blocked group ahead of it
  bool operator==(const PendingReason&) const = default;
};

struct Decisions {
  std::vector<Binding> bindings;
  std::vector<Eviction> evictions;
  // The workloads the cycle left pending (T9k groups it attempted or skipped, default pods)
  // whose reason differs from the one the previous cycle gave them, or that were not pending
  // then: like Kubernetes' event aggregation, an unchanged reason is not repeated.
  std::vector<PendingReason> pending;
  // Waiting groups marked lazy (ClusterSnapshot::set_lazy) that the cycle looked at again: the
  // reason each had in the cycle before, which that cycle passed by without reporting. Applied
  // before `pending`, and never a change of cause (docs/scheduler.md "Deep queues").
  std::vector<PendingReason> caught_up;
  bool empty() const { return bindings.empty() && evictions.empty(); }
};

// The reason as one line in kube-scheduler's words, e.g. "0/48 nodes are available: 48
// insufficient nvidia.com/gpu" or "queue production at quota: nvidia.com/gpu 184/192 allocated,
// 16 more asked".
std::string describe(const PendingReason& reason, const ClusterSnapshot& snapshot);

// A new workload (PodGroup, or a bare T9k pod) asking to enter a queue.
struct AdmissionRequest {
  std::string pod_group;         // key, for messages
  std::string queue;             // empty means "default"
  model::ResourceList requests;  // summed requests of all its pods
};

class Scheduler {
 public:
  // Throws OptionsError when options.validate() reports problems.
  explicit Scheduler(SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(Scheduler&&) noexcept;
  Scheduler& operator=(Scheduler&&) noexcept;

  Decisions schedule(const ClusterSnapshot& snapshot, model::SimTime now);
  // After the last cycle: for each waiting group marked lazy whose reason that cycle passed by
  // without reporting, that reason (as Decisions::caught_up).
  std::vector<PendingReason> lazy_reasons(const ClusterSnapshot& snapshot);

  // Admission (the world calls it when a PodGroup or a bare T9k pod is created): rejects when the
  // queue does not exist, is closed (§8.8, §11 Q15), or, with QuotaMode::RejectAtAdmission,
  // when the requests of the queue's live pods plus the new ones exceed its quota (§11 Q14).
  std::optional<Rejection> admit(const ClusterSnapshot& snapshot,
                                 const AdmissionRequest& request) const;

  const SchedulerOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace t9k::scheduler
