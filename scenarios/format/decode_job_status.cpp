// The status of the three job kinds, including older spellings (docs/scenario-format.md).
#include "scenarios/format/detail/object_decoder.hpp"

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

using namespace std::string_view_literals;

namespace {

constexpr std::string_view kCondition[] = {"type", "status", "lastTransitionTime", "reason",
                                           "message"};
constexpr std::string_view kConditionDropped[] = {"lastProbeTime"};
constexpr std::string_view kAggregate[] = {"creating", "pending", "running", "succeeded",
                                           "failed",   "unknown", "deleted"};
constexpr std::string_view kTask[] = {"type", "restartCount", "replicas"};
constexpr std::string_view kTaskLegacy[] = {"replicaStatus"};  // the older reference page
constexpr std::string_view kReplicaStatus[] = {"name", "uid", "phase", "containers",
                                               "restartCount"};
constexpr std::string_view kContainerStatus[] = {"name", "state", "exitCode"};
constexpr std::string_view kContainerStates[] = {"waiting", "running", "terminated"};
constexpr std::string_view kDependent[] = {"name",   "dependent", "ready", "reason",
                                           "action", "note",      "type"};
constexpr std::string_view kObjectRef[] = {"apiVersion", "kind", "name", "namespace", "uid"};
constexpr std::string_view kObjectRefDropped[] = {"resourceVersion", "fieldPath"};
constexpr std::string_view kDependentTypes[] = {"Normal", "Warning"};

}  // namespace

m::JobStatus Decoder::job_status(const Val& v, std::span<const std::string_view> fields) {
  m::JobStatus st;
  MapReader mr(r_, v, fields);
  if (mr.has("phase")) {
    if (auto x = read_enum<m::JobPhase>(r_, mr.get("phase"))) st.phase = *x;
  }
  for (const Val& item : read_list(r_, mr.get("conditions"))) {
    MapReader c(r_, item, kCondition, kConditionDropped);
    m::JobCondition cond;
    const Val type = c.get("type");
    // Older examples spell the first condition "Initializing" (§1.2 CONFLICT).
    if (type.present() && type.node.IsScalar() && type.node.Scalar() == "Initializing") {
      r_.warning(type.mark, type.path,
                 "\"Initializing\" is the older name of condition \"Initialized\" (spec §1.2); "
                 "read as \"Initialized\"");
      cond.type = m::JobConditionType::Initialized;
    } else if (require(r_, type)) {
      if (auto x = read_enum<m::JobConditionType>(r_, type)) cond.type = *x;
    }
    if (require(r_, c.get("status"))) {
      if (auto x = read_enum<m::ConditionStatus>(r_, c.get("status"))) cond.status = *x;
    }
    m::OptionalTime t;
    timestamp(c.get("lastTransitionTime"), t);
    if (t) cond.last_transition_time = *t;
    if (auto x = read_string(r_, c.get("reason"))) cond.reason = *x;
    if (auto x = read_string(r_, c.get("message"))) cond.message = *x;
    st.conditions.push_back(std::move(cond));
  }
  {
    MapReader a(r_, mr.get("aggregate"), kAggregate);
    m::Aggregate& ag = st.aggregate;
    std::int32_t* slots[] = {&ag.creating, &ag.pending, &ag.running, &ag.succeeded,
                             &ag.failed,   &ag.unknown, &ag.deleted};
    for (std::size_t i = 0; i < std::size(kAggregate); ++i) {
      if (auto x = read_int32(r_, a.get(kAggregate[i]), 0)) *slots[i] = *x;
    }
  }
  for (const Val& item : read_list(r_, mr.get("tasks"))) {
    MapReader t(r_, item, kTask, kTaskLegacy);
    m::TaskStatus task;
    if (auto x = read_string(r_, t.get("type"))) task.type = *x;
    if (auto x = read_int32(r_, t.get("restartCount"), 0)) task.restart_count = *x;
    Val replicas = t.get("replicas");
    if (t.has("replicaStatus")) {
      const Val legacy = t.get("replicaStatus");
      if (replicas.present()) {
        r_.error(legacy.mark, legacy.path,
                 "found both replicas and replicaStatus; allowed: replicas (replicaStatus is its "
                 "older name)");
      } else {
        r_.warning(legacy.mark, legacy.path,
                   "\"replicaStatus\" is the older name of \"replicas\" (spec §1.3); read as "
                   "\"replicas\"");
        replicas = legacy;
      }
    }
    for (const Val& rv : read_list(r_, replicas)) {
      MapReader rr(r_, rv, kReplicaStatus);
      m::ReplicaStatus rs;
      if (auto x = read_string(r_, rr.get("name"))) rs.name = *x;
      if (auto x = read_string(r_, rr.get("uid"))) rs.uid = *x;
      if (rr.has("phase")) {
        if (auto x = read_enum<m::ReplicaPhase>(r_, rr.get("phase"))) rs.phase = *x;
      }
      if (auto x = read_int32(r_, rr.get("restartCount"), 0)) rs.restart_count = *x;
      for (const Val& cv : read_list(r_, rr.get("containers"))) {
        MapReader cr(r_, cv, kContainerStatus);
        m::ContainerStatus cs;
        if (auto x = read_string(r_, cr.get("name"))) cs.name = *x;
        if (cr.has("state")) {
          if (auto x = read_choice(r_, cr.get("state"), kContainerStates)) cs.state = *x;
        }
        if (auto x = read_int32(r_, cr.get("exitCode"))) cs.exit_code = *x;
        rs.containers.push_back(std::move(cs));
      }
      task.replicas.push_back(std::move(rs));
    }
    st.tasks.push_back(std::move(task));
  }
  if (auto x = read_int32(r_, mr.get("backoffCount"), 0)) st.backoff_count = *x;
  const Val tb = mr.get("tensorboard");
  if (tb.present()) {
    MapReader d(r_, tb, kDependent);
    m::DependentStatus ds;
    if (auto x = read_string(r_, d.get("name"))) ds.name = *x;
    MapReader ref(r_, d.get("dependent"), kObjectRef, kObjectRefDropped);
    if (auto x = read_string(r_, ref.get("apiVersion"))) ds.dependent.api_version = *x;
    if (auto x = read_string(r_, ref.get("kind"))) ds.dependent.kind = *x;
    if (auto x = read_string(r_, ref.get("name"))) ds.dependent.name = *x;
    if (auto x = read_string(r_, ref.get("namespace"))) ds.dependent.namespace_ = *x;
    if (auto x = read_string(r_, ref.get("uid"))) ds.dependent.uid = *x;
    if (auto x = read_bool(r_, d.get("ready"))) ds.ready = *x;
    if (auto x = read_string(r_, d.get("reason"))) ds.reason = *x;
    if (auto x = read_string(r_, d.get("action"))) ds.action = *x;
    if (auto x = read_string(r_, d.get("note"))) ds.note = *x;
    if (d.has("type")) {
      if (auto x = read_choice(r_, d.get("type"), kDependentTypes)) ds.type = *x;
    }
    st.tensorboard = std::move(ds);
  }
  timestamp(mr.get("startTime"), st.start_time);
  timestamp(mr.get("completionTime"), st.completion_time);
  timestamp(mr.get("activeSince"), st.active_since);
  if (auto x = read_int32(r_, mr.get("elasticReplicas"), 0)) st.elastic_replicas = *x;
  return st;
}

}  // namespace t9k::scenarios::detail
