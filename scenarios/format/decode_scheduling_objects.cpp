// Queue and PodGroup (scheduler.tensorstack.dev), their specs and status.
#include "scenarios/format/detail/object_decoder.hpp"

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

using namespace std::string_view_literals;

namespace {

constexpr std::string_view kQueueSpec[] = {"quota",        "priority",
                                           "preemptible",  "closed",
                                           "maxDuration",  "resourceShapeProfile",
                                           "nodeSelector", "namespaceSelector"};
constexpr std::string_view kQueueLegacy[] = {"requests"};  // UM-old-c0e (§8.2)
constexpr std::string_view kQuota[] = {"requests"};
constexpr std::string_view kSelector[] = {"matchLabels", "matchExpressions"};
constexpr std::string_view kSelectorReq[] = {"key", "operator", "values"};
constexpr std::string_view kQueueStatus[] = {"allocated", "podGroups", "pods"};
constexpr std::string_view kQueueStatusDropped[] = {"conditions"};
constexpr std::string_view kPodGroupCount[] = {"total"};
constexpr std::string_view kPodCounts[] = {"pending", "running", "succeeded", "failed", "unknown"};
constexpr std::string_view kPodGroupSpec[] = {"minMember", "roles",          "queue",
                                              "priority",  "topologyPolicy", "finished"};
constexpr std::string_view kRole[] = {"name", "minMember"};
constexpr std::string_view kPodGroupStatus[] = {"conditions", "allocated", "pending", "running",
                                                "succeeded",  "failed",    "unknown"};
constexpr std::string_view kPodGroupCondition[] = {"type", "status"};
constexpr std::string_view kPodGroupConditionDropped[] = {"reason", "message",
                                                          "lastTransitionTime"};
constexpr std::string_view kPodGroupConditionTypes[] = {"GroupScheduled", "SufficientGroupMember"};
constexpr std::string_view kConditionStatus[] = {"True", "False", "Unknown"};

}  // namespace

m::LabelSelector Decoder::selector(const Val& v) {
  m::LabelSelector sel;
  MapReader mr(r_, v, kSelector);
  sel.match_labels = labels(mr.get("matchLabels"));
  for (const Val& item : read_list(r_, mr.get("matchExpressions"))) {
    MapReader e(r_, item, kSelectorReq);
    m::LabelSelectorRequirement req;
    if (require(r_, e.get("key"))) {
      if (auto x = read_string(r_, e.get("key"))) req.key = *x;
    }
    if (require(r_, e.get("operator"))) {
      if (auto x = read_enum<m::SelectorOperator>(r_, e.get("operator"))) req.op = *x;
    }
    if (auto x = read_string_list(r_, e.get("values"))) req.values = *x;
    sel.match_expressions.push_back(std::move(req));
  }
  return sel;
}

m::QueueSpec Decoder::queue_spec(const Val& v) {
  m::QueueSpec s;
  MapReader mr(r_, v, kQueueSpec, kQueueLegacy);
  const Val quota = mr.get("quota");
  if (quota.present()) {
    MapReader q(r_, quota, kQuota);
    s.quota = resources(q.get("requests"));
  }
  const Val legacy = mr.get("requests");
  if (legacy.present()) {
    if (quota.present()) {
      r_.error(legacy.mark, legacy.path,
               "found both quota and requests; allowed: quota.requests (spec.requests is its "
               "older name)");
    } else {
      r_.warning(legacy.mark, legacy.path,
                 "\"spec.requests\" is the older name of \"spec.quota.requests\" (spec §8.2); "
                 "read as quota");
      s.quota = resources(legacy);
    }
  }
  if (auto x = read_int32(r_, mr.get("priority"))) s.priority = *x;
  if (auto x = read_bool(r_, mr.get("preemptible"))) s.preemptible = *x;
  if (auto x = read_bool(r_, mr.get("closed"))) s.closed = *x;
  const Val md = mr.get("maxDuration");
  if (auto x = read_string(r_, md)) {
    try {
      s.max_duration = kernel::parse_max_duration(*x);
      s.max_duration_text = *x;
    } catch (const kernel::DurationError& e) {
      r_.error(md.mark, md.path, e.what());
    }
  }
  if (auto x = read_string(r_, mr.get("resourceShapeProfile"))) s.resource_shape_profile = *x;
  if (mr.has("nodeSelector")) s.node_selector = selector(mr.get("nodeSelector"));
  if (mr.has("namespaceSelector")) s.namespace_selector = selector(mr.get("namespaceSelector"));
  return s;
}

m::QueueStatus Decoder::queue_status(const Val& v) {
  m::QueueStatus st;
  MapReader mr(r_, v, kQueueStatus, kQueueStatusDropped);
  st.allocated = resources(mr.get("allocated"));
  MapReader pg(r_, mr.get("podGroups"), kPodGroupCount);
  if (auto x = read_int32(r_, pg.get("total"), 0)) st.pod_groups = *x;
  MapReader pods(r_, mr.get("pods"), kPodCounts);
  std::int32_t* slots[] = {&st.pods_pending, &st.pods_running, &st.pods_succeeded, &st.pods_failed,
                           &st.pods_unknown};
  for (std::size_t i = 0; i < std::size(kPodCounts); ++i) {
    if (auto x = read_int32(r_, pods.get(kPodCounts[i]), 0)) *slots[i] = *x;
  }
  return st;
}

m::PodGroupSpec Decoder::pod_group_spec(const Val& v) {
  m::PodGroupSpec s;
  MapReader mr(r_, v, kPodGroupSpec);
  if (auto x = read_int32(r_, mr.get("minMember"), 0)) s.min_member = *x;
  for (const Val& item : read_list(r_, mr.get("roles"))) {
    MapReader rr(r_, item, kRole);
    m::PodGroupRole role;
    if (require(r_, rr.get("name"))) {
      if (auto x = read_string(r_, rr.get("name"))) role.name = *x;
    }
    if (auto x = read_int32(r_, rr.get("minMember"), 0)) role.min_member = *x;
    s.roles.push_back(std::move(role));
  }
  if (auto x = read_string(r_, mr.get("queue"))) s.queue = *x;
  if (auto x = read_int32(r_, mr.get("priority"))) s.priority = *x;
  if (auto x = read_string(r_, mr.get("topologyPolicy"))) s.topology_policy = *x;
  if (auto x = read_bool(r_, mr.get("finished"))) s.finished = *x;
  return s;
}

m::PodGroupStatus Decoder::pod_group_status(const Val& v) {
  m::PodGroupStatus st;
  MapReader mr(r_, v, kPodGroupStatus);
  for (const Val& item : read_list(r_, mr.get("conditions"))) {
    MapReader c(r_, item, kPodGroupCondition, kPodGroupConditionDropped);
    std::optional<std::string> type, status;
    if (require(r_, c.get("type"))) type = read_choice(r_, c.get("type"), kPodGroupConditionTypes);
    if (require(r_, c.get("status"))) status = read_choice(r_, c.get("status"), kConditionStatus);
    if (type && status) {
      (*type == "GroupScheduled" ? st.group_scheduled : st.sufficient_group_member) =
          *status == "True";
    }
  }
  st.allocated = resources(mr.get("allocated"));
  std::int32_t* slots[] = {&st.pending, &st.running, &st.succeeded, &st.failed, &st.unknown};
  for (std::size_t i = 0; i < std::size(kPodCounts); ++i) {
    if (auto x = read_int32(r_, mr.get(kPodCounts[i]), 0)) *slots[i] = *x;
  }
  return st;
}

}  // namespace t9k::scenarios::detail
