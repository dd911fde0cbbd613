// The change feed: every object transition the world makes is published as one of these, in
// simulation order. analysis/ subscribes to it (and never reaches into the world); `--events`
// writes it as events.jsonl. Times are integer microseconds. GPU amounts are integer milli-GPU
// (model::kGpuMilliPerGpu = 1000 per GPU): a pod's nvidia.com/gpu request rounded up to whole GPUs
// × 1000, plus its t9ksim.io/gpu-milli share, so a pod sharing half a GPU counts 500. GPU-time is
// milli-GPU × µs, exact in 128-bit integers (6,212 GPUs × 1000 × 160 days of µs exceeds int64).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "kernel/hash.hpp"
#include "model/cluster.hpp"
#include "model/enums.hpp"
#include "model/meta.hpp"
#include "model/text.hpp"

namespace t9k::model {

using kernel::Int128;
using JobId = std::uint32_t;

// Why progress was lost (the checkpoint rollback of an interrupted training run).
enum class LossCause : std::uint8_t {
  Fault,        // hardware: node, GPU or switch failure (faults-and-validation §1)
  Software,     // the job's own code failed and was restarted (§2)
  Preemption,   // the scheduler evicted a pod (§8.6)
  Scale,        // elastic membership change restarted training (§4.3, §11 Q8)
  Pause,        // runMode.pause (§7.2)
  MaxDuration,  // queue maxDuration (§8.8)
  Other,        // drains, deadlines, terminal failures, anything else
};
inline constexpr int kLossCauses = 7;
std::string_view to_string(LossCause c);

// Why the scheduler left a job waiting (docs/scheduler.md "Why is this job pending?"). One byte:
// an optional cause is two in the records kept per waiting job (issue 49).
enum class PendingCause : std::uint8_t {
  Quota,        // the queue's quota leaves no room for it (§8.7)
  Capacity,     // no node has the free resources (at least one node lacks only room)
  Constraints,  // every node is excluded by readiness or node selectors, none for room
  Preempting,   // it preempted lower-priority pods, or waits for pods already terminating (§8.6)
  QueueOrder,   // strict FIFO (§11 Q11): a blocked workload ahead of it in its queue
  GangMembers,  // fewer pods exist than the gang's minMember (§8.3)
};
inline constexpr int kPendingCauses = 6;
std::string_view to_string(PendingCause c);

struct JobSubmitted {
  JobId job;
  std::string name;  // namespace/name
  JobKind kind;
  std::string queue;  // empty for the default scheduler
  std::int32_t priority = 0;
  std::int32_t replicas = 0;   // pods at submission (elastic: expectedReplicas clamped)
  std::int64_t gpu_milli = 0;  // milli-GPU requested at submission, all pods
  bool elastic = false;
  std::int64_t ideal_run_us = 0;  // run time at the submitted size with no faults or waiting
  std::string plugin_kind{};      // JobKind::Plugin: the kind's own name ("PyTorchJob")
};
// A kind's name kept for the life of the process (records of many jobs refer to a few names).
std::string_view interned_kind(std::string_view name);
// "GenericJob", ..., or a plugin's own kind, as jobs.csv and events.jsonl name it.
inline std::string_view kind_name(const JobSubmitted& c) {
  return c.kind == JobKind::Plugin ? std::string_view(c.plugin_kind) : to_string(c.kind);
}
struct JobRejected {
  JobId job;
  std::string reason;
};
struct JobPhaseChanged {
  JobId job;
  JobPhase phase;
  Text reason;  // the condition's (model/text.hpp): copied without allocating
  Text message;
  std::int32_t restarts = 0;       // sum of tasks[].restartCount
  std::int32_t backoff_count = 0;  // status.backoffCount (0 for GenericJob)
};
// A controller created a pod (not yet bound to a node).
struct PodCreated {
  JobId job;
  std::string pod;
  std::string replica_type;
  std::int32_t rank = 0;
  std::int64_t gpu_milli = 0;  // milli-GPU requested
};
struct PodBound {
  JobId job;
  std::string pod;
  std::string node;
  std::int64_t gpu_milli = 0;  // milli-GPU held from now on
  std::string queue;
};
struct PodRunning {
  JobId job;
  std::string pod;
};
// The pod stopped holding resources (terminated, or deleted while bound).
struct PodReleased {
  JobId job;
  std::string pod;
  std::string node;
  std::int64_t gpu_milli = 0;  // milli-GPU no longer held
  std::string queue;
  PodPhase phase;
  std::optional<std::int32_t> exit_code;
  std::optional<DeletionReason> reason;
  SimTime bound_at{};  // when it was bound (its PodBound's time): it held gpu_milli since then
};
struct PodDeleted {
  JobId job;
  std::string pod;
  DeletionReason reason;
};
// Training of a job became active (productive milli-GPU > 0) or stopped.
struct TrainingChanged {
  JobId job;
  std::int64_t gpu_milli = 0;  // milli-GPU doing productive work now; 0 = stopped
};
struct ProgressLost {
  JobId job;
  LossCause cause;
  Int128 gpu_milli_us =
      0;  // productive GPU-time rolled back to the last checkpoint, milli-GPU × µs
};
struct ProgressCommitted {
  JobId job;
  Int128 gpu_milli_us =
      0;  // productive GPU-time made permanent (checkpoint or completion), milli-GPU × µs
  // When that productive time was done: spread over [from, until) (the productive stretch of
  // the segment, checkpoint writes included), so a series over time counts progress kept where
  // it was made and never progress later lost (docs/outputs.md, timeseries.csv).
  SimTime from{};
  SimTime until{};
};
struct NodeChanged {
  std::string node;
  bool ready = true;
  bool unschedulable = false;
  std::int64_t gpu_milli = 0;  // allocatable milli-GPU now (whole GPUs × 1000)
  std::string cause;           // fault class, "repair", "drain", "cordon", "added", "removed"
};
struct QueueChanged {
  std::string queue;
  bool closed = false;
};
// The pod's node was lost: it is Unknown until the failure is detected (then PodReleased, Failed).
struct PodUnknown {
  JobId job;
  std::string pod;
  std::string node;
};
// The job's controller wrote a different status (published only when the run asks for it,
// `t9ksim run --events`): the whole status as the API shows it, one line of JSON.
struct JobStatusChanged {
  JobId job;
  std::string status;
};

// The scheduler leaves the job waiting (none of its pods bound): published when the cause of
// the wait changes, and with the job's last reason when it is placed or the run ends; the
// messages in between are not published (they change with every count).
struct JobPending {
  JobId job;
  PendingCause cause;
  // kube-scheduler style: "0/48 nodes are available: 48 insufficient nvidia.com/gpu". A Text:
  // the same few messages for thousands of waiting jobs share one block (SchedulingDriver).
  Text message;
};

// The job left the world: it finished, its pods all terminated, and the store released it; no
// change names it again. Bookkeeping for subscribers that keep per-job state (the recorder
// streams the job's row and forgets it), not an object transition: events.jsonl leaves it out.
struct JobLeft {
  JobId job;
};

// The job's controller recorded an event (a plugin's event recorder; published only for runs with
// `--events`).
struct ControllerEventRecorded {
  JobId job;
  std::string type;
  std::string reason;
  std::string message;
};

// New kinds go at the end: their index is part of nothing persistent, but keep the order stable.
using Change = std::variant<JobSubmitted, JobRejected, JobPhaseChanged, PodCreated, PodBound,
                            PodRunning, PodReleased, PodDeleted, TrainingChanged, ProgressLost,
                            ProgressCommitted, NodeChanged, QueueChanged, PodUnknown,
                            JobStatusChanged, JobPending, JobLeft, ControllerEventRecorded>;

struct TimedChange {
  SimTime time;
  Change change;
};

}  // namespace t9k::model
