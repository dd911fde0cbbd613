// Pods and nodes as the simulator keeps them: the parts of core/v1 that matter for scheduling
// and for the job controllers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/compact_vector.hpp"
#include "model/enums.hpp"
#include "model/meta.hpp"

namespace t9k::model {

// Pod labels set by the job controllers (spec §10).
inline constexpr const char* kLabelGroupName = "scheduler.tensorstack.dev/group-name";
inline constexpr const char* kLabelQueue = "scheduler.tensorstack.dev/queue";
inline constexpr const char* kLabelRole = "scheduler.tensorstack.dev/role";
inline constexpr const char* kLabelComponent = "tensorstack.dev/component";
inline constexpr const char* kLabelComponentType = "tensorstack.dev/component-type";
inline constexpr const char* kLabelOwnerName = "tensorstack.dev/owner-name";
inline constexpr const char* kT9kSchedulerName = "t9k-scheduler";
inline constexpr const char* kDefaultSchedulerName = "default-scheduler";

// Well-known node labels the simulator sets.
inline constexpr const char* kLabelHostname = "kubernetes.io/hostname";
inline constexpr const char* kLabelGpuModel = "nvidia.com/gpu.product";
inline constexpr const char* kLabelRack = "topology.t9ksim.io/rack";
inline constexpr const char* kLabelSwitch = "topology.t9ksim.io/switch";

// Why a pod was deleted (controllers give a reason; the world and scheduler add their own).
enum class DeletionReason : std::uint8_t {
  Cleanup,      // cleanUpPolicy at the terminal transition (§6.2)
  Pause,        // runMode.pause (§7.2)
  ScaleDown,    // elastic scale-down (§4.3)
  Deadline,     // activeDeadlineSeconds expired (§6.1)
  Restart,      // the controller replaces a failed pod (§2)
  Preemption,   // the scheduler evicted it (§8.6)
  MaxDuration,  // queue maxDuration exceeded (§8.8)
  NodeFailure,  // its node failed (§9, §11 Q13)
  Drain,        // its node was drained
  User,         // deleted by a scenario operation
};
std::string_view to_string(DeletionReason r);

struct Pod {  // 304 bytes: small parts last (one per pod the store keeps, issue 49)
  // Name "<job>-<type>-<rank>", owner reference to the job. `labels`: the template's, and with
  // `standard_labels` not §10's, which pod_labels() adds.
  ObjectMeta metadata;
  // The owning job and this pod's place in it.
  Text job_name;
  Text replica_type;
  std::int32_t rank = 0;
  std::int32_t generation = 0;  // increments each time the same name is recreated

  // Effective requests (pod_requests()); shared by the pods that ask the same (the store keeps
  // the last few it met: issue 49).
  Shared<ResourceList> requests;
  Labels node_selector;
  Text scheduler_name = Text::fixed(kDefaultSchedulerName);
  Text queue;                 // T9k scheduler only
  Text pod_group;             // T9k scheduler only
  Text role;                  // PodGroup role (replica type)
  std::int32_t priority = 0;  // pod priority for the default scheduler
  // Observed (beside priority, where it packs): which GPU of the node a pod requesting
  // t9ksim.io/gpu-milli shares (0-based), -1 otherwise, chosen by the scheduler with the binding
  // as a GPU-sharing device plugin records it.
  std::int32_t gpu_index = -1;
  // The training container's command and args as the controller set them: the template's, the
  // debug command (§7.1) or a resumeSpec's (§7.2).
  CompactVector<std::string> command;
  CompactVector<std::string> args;
  std::int64_t termination_grace_period_seconds = 30;  // Kubernetes default

  // Observed state.
  Text node_name;  // empty until bound
  std::optional<std::int32_t> exit_code;
  OptionalTime bind_time;
  OptionalTime start_time;   // containers running
  OptionalTime finish_time;  // terminated
  OptionalTime deletion_timestamp;
  PodPhase phase = PodPhase::Pending;
  std::optional<DeletionReason> deletion_reason;
  bool debug = false;  // runs the debug command: never finishes on its own (§7.1)
  // The job's kind when the pod carries §10's labels (and §8.1's with the T9k scheduler) for it.
  // They follow from job_name, queue, role and metadata.name, so they are implied, not stored
  // (a map of eight labels per pod was 4.4 MB of the backlog's peak, issue 49), and
  // metadata.labels then holds none of their keys. One representation per pod, so that
  // equal pods compare equal: the built-in controllers set it (drop_standard_keys), and a pod
  // read from a plugin gets it when its labels hold §10's (imply_standard_labels).
  std::optional<JobKind> standard_labels;
  bool operator==(const Pod&) const = default;
};

// All of a pod's labels: metadata.labels and, with standard_labels, §10's.
Labels pod_labels(const Pod& pod);
// With standard_labels set: drops from metadata.labels the keys §10 gives (a template's label of
// such a key is overridden by the controller's).
void drop_standard_keys(Pod& pod);
// Without standard_labels: when metadata.labels hold every label §10 gives a built-in kind's pod
// (and §8.1's with a PodGroup) with its value, they become implied. pod_labels() is unchanged.
void imply_standard_labels(Pod& pod);

struct Node {
  ObjectMeta metadata;  // name; labels include hostname, GPU model, rack, switch
  ResourceList capacity;
  ResourceList allocatable;
  std::string gpu_model;
  bool ready = true;           // false while failed (until repaired)
  bool unschedulable = false;  // cordoned or drained
  bool operator==(const Node&) const = default;
};

}  // namespace t9k::model
