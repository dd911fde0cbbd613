// The T9k scheduler's objects, scheduler.tensorstack.dev/v1beta1 (spec §8): Queue and PodGroup.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/meta.hpp"

namespace t9k::model {

inline constexpr const char* kSchedulerApiVersion = "scheduler.tensorstack.dev/v1beta1";
inline constexpr const char* kDefaultQueue = "default";  // §8.2, §8.3

struct QueueSpec {
  std::optional<ResourceList> quota;                // quota.requests; unset => no quota (§8.2)
  std::int32_t priority = 0;                        // [0, 100] (§8.2)
  std::optional<bool> preemptible;                  // unset => preemptible (§8.2, API)
  bool closed = false;                              // §8.8
  std::optional<SimDuration> max_duration;          // §8.2 grammar; unset => no limit
  std::string max_duration_text;                    // as written, for round trips and messages
  std::string resource_shape_profile;               // names a profile of shape limits (§8.2)
  std::optional<LabelSelector> node_selector;       // nil => all nodes
  std::optional<LabelSelector> namespace_selector;  // admission only
  bool is_preemptible() const { return preemptible.value_or(true); }
  bool operator==(const QueueSpec&) const = default;
};

struct QueueStatus {
  ResourceList allocated;
  std::int32_t pod_groups = 0;
  std::int32_t pods_pending = 0, pods_running = 0, pods_succeeded = 0, pods_failed = 0,
               pods_unknown = 0;
  bool operator==(const QueueStatus&) const = default;
};

struct Queue {
  ObjectMeta metadata;
  QueueSpec spec;
  QueueStatus status;
  bool operator==(const Queue&) const = default;
};

struct PodGroupRole {
  Text name;
  std::int32_t min_member = 0;
  bool operator==(const PodGroupRole&) const = default;
};

struct PodGroupSpec {
  std::int32_t min_member = 1;  // total replicas, or elastic.minReplicas (§8.1)
  std::vector<PodGroupRole> roles;
  Text queue = Text::fixed(kDefaultQueue);  // §8.3: default "default"
  std::int32_t priority = 0;                // §8.3: [0, 100], default 0
  Text topology_policy;                     // undocumented (§8.3); kept, not interpreted
  // The old API's spec.finished (§8.3): set once the job is terminal; the scheduler allocates no
  // more to the group. The store keeps it (a controller's later update cannot clear it).
  bool finished = false;
  bool operator==(const PodGroupSpec&) const = default;
};

struct PodGroupStatus {
  bool group_scheduled = false;          // condition GroupScheduled
  bool sufficient_group_member = false;  // condition SufficientGroupMember
  ResourceList allocated;
  std::int32_t pending = 0, running = 0, succeeded = 0, failed = 0, unknown = 0;
  bool operator==(const PodGroupStatus&) const = default;
};

struct PodGroup {
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
  bool operator==(const PodGroup&) const = default;
};

}  // namespace t9k::model
