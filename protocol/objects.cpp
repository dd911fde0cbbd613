// Pods, PodGroups, job statuses and controller options on the wire, both ways. The shapes follow
// Kubernetes; PodGroups and statuses are printed exactly as scenarios/format prints them in
// manifests (byte for byte, tested); what the simulator keeps of a pod beyond Kubernetes is under
// "t9ksim".
#include <fmt/format.h>

#include "protocol/objects.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::protocol::detail {

namespace m = t9k::model;

namespace {

constexpr m::DeletionReason kReasons[] = {
    m::DeletionReason::Cleanup,     m::DeletionReason::Pause,       m::DeletionReason::ScaleDown,
    m::DeletionReason::Deadline,    m::DeletionReason::Restart,     m::DeletionReason::Preemption,
    m::DeletionReason::MaxDuration, m::DeletionReason::NodeFailure, m::DeletionReason::Drain,
    m::DeletionReason::User};

}  // namespace

m::DeletionReason deletion_reason(const Value& j, const Path& path) {
  const std::string s = string(j, path);
  for (const auto r : kReasons) {
    if (m::to_string(r) == s) return r;
  }
  std::string allowed;
  for (const auto r : kReasons)
    allowed += (allowed.empty() ? "" : ", ") + std::string(m::to_string(r));
  bad(path, "one of " + allowed, j);
}

// ---- Pod ----

void write_pod(Writer& w, const m::Pod& p) {
  w.begin_object().key("apiVersion").string("v1").key("kind").string("Pod");
  write_metadata(w.key("metadata"), p.metadata, p.deletion_timestamp);
  w.key("spec").begin_object();
  if (!p.node_name.empty()) w.key("nodeName").string(p.node_name);
  w.key("schedulerName").string(p.scheduler_name);
  w.key("priority").integer(p.priority);
  if (!p.node_selector.empty()) write_labels(w.key("nodeSelector"), p.node_selector);
  w.key("terminationGracePeriodSeconds").integer(p.termination_grace_period_seconds);
  w.key("containers").begin_array().begin_object().key("name").string("main");
  if (!p.command.empty()) write_strings(w.key("command"), p.command);
  if (!p.args.empty()) write_strings(w.key("args"), p.args);
  if (!p.requests.empty()) {
    w.key("resources").begin_object();
    write_resources(w.key("requests"), p.requests);
    w.end_object();
  }
  w.end_object().end_array().end_object();
  w.key("status").begin_object().key("phase").string(m::to_string(p.phase));
  if (p.start_time) write_time(w.key("startTime"), *p.start_time);
  if (p.exit_code || p.finish_time) {
    w.key("containerStatuses").begin_array().begin_object().key("name").string("main");
    w.key("state").begin_object().key("terminated").begin_object();
    if (p.exit_code) w.key("exitCode").integer(*p.exit_code);
    if (p.finish_time) write_time(w.key("finishedAt"), *p.finish_time);
    w.end_object().end_object().end_object().end_array();
  }
  w.end_object();
  w.key("t9ksim").begin_object();
  w.key("job")
      .string(p.job_name)
      .key("replicaType")
      .string(p.replica_type)
      .key("rank")
      .integer(p.rank);
  w.key("generation").integer(p.generation);
  if (!p.queue.empty()) w.key("queue").string(p.queue);
  if (!p.pod_group.empty()) w.key("podGroup").string(p.pod_group);
  if (!p.role.empty()) w.key("role").string(p.role);
  if (p.debug) w.key("debug").boolean(true);
  if (p.gpu_index >= 0) w.key("gpuIndex").integer(p.gpu_index);
  if (p.bind_time) write_time(w.key("bindTime"), *p.bind_time);
  if (p.deletion_reason) w.key("deletionReason").string(m::to_string(*p.deletion_reason));
  w.end_object().end_object();
}

m::Pod decode_pod(const Value& j, const Path& path) {
  object(j, path);
  m::Pod p;
  const Path mp = child(path, "metadata");
  const Value meta = need(j, path, "metadata");
  p.metadata = metadata(meta, mp);
  if (const Member x = member(meta, "deletionTimestamp"))
    p.deletion_timestamp = timestamp(*x, child(mp, "deletionTimestamp"));
  if (p.metadata.name.empty()) bad(child(mp, "name"), "required field is missing");
  const Path sp = child(path, "spec");
  const Value spec = need(j, path, "spec");
  object(spec, sp);
  p.node_name = opt_string(spec, sp, "nodeName");
  p.scheduler_name = opt_string(spec, sp, "schedulerName", m::kDefaultSchedulerName);
  if (const Member x = member(spec, "priority")) p.priority = int32(*x, child(sp, "priority"));
  if (const Member x = member(spec, "nodeSelector"))
    p.node_selector = labels(*x, child(sp, "nodeSelector"));
  if (const Member x = member(spec, "terminationGracePeriodSeconds")) {
    p.termination_grace_period_seconds = int64(*x, child(sp, "terminationGracePeriodSeconds"));
    if (p.termination_grace_period_seconds < 0)
      bad(child(sp, "terminationGracePeriodSeconds"), "a number >= 0", *x);
  }
  // Requests are the containers' (summed), as pod_requests() gives them; command and args are
  // the first container's (the training container).
  const Path cp = child(sp, "containers");
  std::size_t i = 0;
  for (const auto& c : array(need(spec, sp, "containers"), cp).items()) {
    const Path ip = item(cp, i);
    object(c, ip);
    if (i == 0) {
      if (const Member x = member(c, "command")) p.command = strings(*x, child(ip, "command"));
      if (const Member x = member(c, "args")) p.args = strings(*x, child(ip, "args"));
    }
    if (const Member res = member(c, "resources")) {
      const Path rp = child(ip, "resources");
      if (const Member req = member(object(*res, rp), "requests"))
        m::add_resources(p.requests, resources(*req, child(rp, "requests")));
    }
    ++i;
  }
  if (const Member st = member(j, "status")) {
    const Path stp = child(path, "status");
    object(*st, stp);
    if (const Member x = member(*st, "phase"))
      p.phase = enumeration<m::PodPhase>(*x, child(stp, "phase"));
    if (const Member x = member(*st, "startTime"))
      p.start_time = timestamp(*x, child(stp, "startTime"));
    if (const Member cs = member(*st, "containerStatuses")) {
      const Path csp = child(stp, "containerStatuses");
      std::size_t k = 0;
      for (const auto& c : array(*cs, csp).items()) {
        const Path kp = item(csp, k++);
        const Member state = member(object(c, kp), "state");
        const Path sp2 = child(kp, "state");
        const Member term = state ? member(object(*state, sp2), "terminated") : Member{};
        if (!term || p.exit_code) continue;  // the first terminated container's
        const Path tp = child(sp2, "terminated");
        object(*term, tp);
        if (const Member x = member(*term, "exitCode"))
          p.exit_code = int32(*x, child(tp, "exitCode"));
        if (const Member x = member(*term, "finishedAt"))
          p.finish_time = timestamp(*x, child(tp, "finishedAt"));
      }
    }
  }
  const Path ep = child(path, "t9ksim");
  const Value ext = need(j, path, "t9ksim");
  object(ext, ep);
  p.job_name = string(need(ext, ep, "job"), child(ep, "job"));
  p.replica_type = string(need(ext, ep, "replicaType"), child(ep, "replicaType"));
  const Value rank = need(ext, ep, "rank");
  p.rank = int32(rank, child(ep, "rank"));
  if (p.rank < 0) bad(child(ep, "rank"), "a number >= 0", rank);
  if (const Member x = member(ext, "generation")) p.generation = int32(*x, child(ep, "generation"));
  p.queue = opt_string(ext, ep, "queue");
  p.pod_group = opt_string(ext, ep, "podGroup");
  p.role = opt_string(ext, ep, "role");
  if (const Member x = member(ext, "debug")) p.debug = boolean(*x, child(ep, "debug"));
  if (const Member x = member(ext, "gpuIndex")) p.gpu_index = int32(*x, child(ep, "gpuIndex"));
  if (const Member x = member(ext, "bindTime")) p.bind_time = timestamp(*x, child(ep, "bindTime"));
  if (const Member x = member(ext, "deletionReason"))
    p.deletion_reason = deletion_reason(*x, child(ep, "deletionReason"));
  return p;
}

// ---- PodGroup (as scenarios/format prints it) ----

void write_pod_group(Writer& w, const m::PodGroup& g) {
  w.begin_object().key("apiVersion").string(m::kSchedulerApiVersion).key("kind").string("PodGroup");
  write_metadata(w.key("metadata"), g.metadata);
  const auto& s = g.spec;
  w.key("spec").begin_object().key("minMember").integer(s.min_member);
  if (!s.roles.empty()) {
    w.key("roles").begin_array();
    for (const auto& r : s.roles)
      w.begin_object()
          .key("name")
          .string(r.name)
          .key("minMember")
          .integer(r.min_member)
          .end_object();
    w.end_array();
  }
  w.key("queue").string(s.queue).key("priority").integer(s.priority);
  if (!s.topology_policy.empty()) w.key("topologyPolicy").string(s.topology_policy);
  if (s.finished)
    w.key("finished").boolean(true);  // §8.3: the world sets it once the job is terminal
  w.end_object();
  if (!(g.status == m::PodGroupStatus{})) {
    const auto& st = g.status;
    auto cond = [&](const char* type, bool v) {
      w.begin_object()
          .key("type")
          .string(type)
          .key("status")
          .string(v ? "True" : "False")
          .end_object();
    };
    w.key("status").begin_object().key("conditions").begin_array();
    cond("GroupScheduled", st.group_scheduled);
    cond("SufficientGroupMember", st.sufficient_group_member);
    w.end_array();
    write_resources(w.key("allocated"), st.allocated);
    w.key("pending")
        .integer(st.pending)
        .key("running")
        .integer(st.running)
        .key("succeeded")
        .integer(st.succeeded);
    w.key("failed").integer(st.failed).key("unknown").integer(st.unknown);
    w.end_object();
  }
  w.end_object();
}

m::PodGroup decode_pod_group(const Value& j, const Path& path) {
  object(j, path);
  m::PodGroup g;
  g.metadata = metadata(need(j, path, "metadata"), child(path, "metadata"));
  const Path sp = child(path, "spec");
  const Value spec = need(j, path, "spec");
  object(spec, sp);
  g.spec.min_member = int32(need(spec, sp, "minMember"), child(sp, "minMember"));
  if (const Member roles = member(spec, "roles")) {
    std::size_t i = 0;
    const Path rsp = child(sp, "roles");
    for (const auto& r : array(*roles, rsp).items()) {
      const Path rp = item(rsp, i++);
      object(r, rp);
      g.spec.roles.push_back({string(need(r, rp, "name"), child(rp, "name")),
                              int32(need(r, rp, "minMember"), child(rp, "minMember"))});
    }
  }
  g.spec.queue = opt_string(spec, sp, "queue", m::kDefaultQueue);
  if (const Member x = member(spec, "priority")) g.spec.priority = int32(*x, child(sp, "priority"));
  g.spec.topology_policy = opt_string(spec, sp, "topologyPolicy");
  if (const Member x = member(spec, "finished"))
    g.spec.finished = boolean(*x, child(sp, "finished"));
  if (const Member st = member(j, "status")) {
    const Path stp = child(path, "status");
    object(*st, stp);
    if (const Member conds = member(*st, "conditions")) {
      std::size_t i = 0;
      const Path csp = child(stp, "conditions");
      for (const auto& c : array(*conds, csp).items()) {
        const Path cp = item(csp, i++);
        object(c, cp);
        const Value type_v = need(c, cp, "type");
        const std::string type = string(type_v, child(cp, "type"));
        const bool value =
            enumeration<m::ConditionStatus>(need(c, cp, "status"), child(cp, "status")) ==
            m::ConditionStatus::True;
        if (type == "GroupScheduled") {
          g.status.group_scheduled = value;
        } else if (type == "SufficientGroupMember") {
          g.status.sufficient_group_member = value;
        } else {
          bad(child(cp, "type"), "GroupScheduled or SufficientGroupMember", type_v);
        }
      }
    }
    if (const Member x = member(*st, "allocated"))
      g.status.allocated = resources(*x, child(stp, "allocated"));
    std::int32_t* counts[] = {&g.status.pending, &g.status.running, &g.status.succeeded,
                              &g.status.failed, &g.status.unknown};
    const char* names[] = {"pending", "running", "succeeded", "failed", "unknown"};
    for (std::size_t k = 0; k < 5; ++k) {
      if (const Member x = member(*st, names[k])) *counts[k] = int32(*x, child(stp, names[k]));
    }
  }
  return g;
}

// ---- JobStatus (as scenarios/format prints it) ----

void write_status(Writer& w, const m::JobStatus& st) {
  w.begin_object();
  if (st.phase) w.key("phase").string(m::to_string(*st.phase));
  if (!st.conditions.empty()) {
    w.key("conditions").begin_array();
    for (const auto& c : st.conditions) {
      w.begin_object()
          .key("type")
          .string(m::to_string(c.type))
          .key("status")
          .string(m::to_string(c.status));
      write_time(w.key("lastTransitionTime"), c.last_transition_time);
      if (!c.reason.empty()) w.key("reason").string(c.reason);
      if (!c.message.empty()) w.key("message").string(c.message);
      w.end_object();
    }
    w.end_array();
  }
  const m::Aggregate& ag = st.aggregate;
  w.key("aggregate")
      .begin_object()
      .key("creating")
      .integer(ag.creating)
      .key("pending")
      .integer(ag.pending);
  w.key("running")
      .integer(ag.running)
      .key("succeeded")
      .integer(ag.succeeded)
      .key("failed")
      .integer(ag.failed);
  w.key("unknown").integer(ag.unknown).key("deleted").integer(ag.deleted).end_object();
  if (!st.tasks.empty()) {
    w.key("tasks").begin_array();
    for (const auto& t : st.tasks) {
      w.begin_object().key("type").string(t.type).key("restartCount").integer(t.restart_count);
      if (!t.replicas.empty()) {
        w.key("replicas").begin_array();
        for (const auto& r : t.replicas) {
          w.begin_object().key("name").string(r.name);
          if (!r.uid.empty()) w.key("uid").string(r.uid);
          w.key("phase").string(m::to_string(r.phase));
          if (!r.containers.empty()) {
            w.key("containers").begin_array();
            for (const auto& c : r.containers) {
              w.begin_object().key("name").string(c.name);
              if (!c.state.empty()) w.key("state").string(c.state);
              if (c.exit_code) w.key("exitCode").integer(*c.exit_code);
              w.end_object();
            }
            w.end_array();
          }
          if (r.restart_count) w.key("restartCount").integer(r.restart_count);
          w.end_object();
        }
        w.end_array();
      }
      w.end_object();
    }
    w.end_array();
  }
  if (st.backoff_count) w.key("backoffCount").integer(*st.backoff_count);
  if (st.tensorboard) {
    const auto& d = *st.tensorboard;
    w.key("tensorboard").begin_object();
    if (!d.name.empty()) w.key("name").string(d.name);
    w.key("dependent").begin_object();
    if (!d.dependent.api_version.empty()) w.key("apiVersion").string(d.dependent.api_version);
    if (!d.dependent.kind.empty()) w.key("kind").string(d.dependent.kind);
    if (!d.dependent.name.empty()) w.key("name").string(d.dependent.name);
    if (!d.dependent.namespace_.empty()) w.key("namespace").string(d.dependent.namespace_);
    if (!d.dependent.uid.empty()) w.key("uid").string(d.dependent.uid);
    w.end_object().key("ready").boolean(d.ready);
    if (!d.reason.empty()) w.key("reason").string(d.reason);
    if (!d.action.empty()) w.key("action").string(d.action);
    if (!d.note.empty()) w.key("note").string(d.note);
    if (!d.type.empty()) w.key("type").string(d.type);
    w.end_object();
  }
  if (st.start_time) write_time(w.key("startTime"), *st.start_time);
  if (st.completion_time) write_time(w.key("completionTime"), *st.completion_time);
  if (st.active_since) write_time(w.key("activeSince"), *st.active_since);
  if (st.elastic_replicas) w.key("elasticReplicas").integer(*st.elastic_replicas);
  w.end_object();
}

m::JobStatus decode_status(const Value& j, const Path& path) {
  object(j, path);
  m::JobStatus st;
  if (const Member x = member(j, "phase"))
    st.phase = enumeration<m::JobPhase>(*x, child(path, "phase"));
  if (const Member conds = member(j, "conditions")) {
    const Path cp = child(path, "conditions");
    std::size_t i = 0;
    for (const auto& c : array(*conds, cp).items()) {
      const Path ip = item(cp, i++);
      object(c, ip);
      m::JobCondition cond;
      cond.type = enumeration<m::JobConditionType>(need(c, ip, "type"), child(ip, "type"));
      cond.status = enumeration<m::ConditionStatus>(need(c, ip, "status"), child(ip, "status"));
      if (const Member x = member(c, "lastTransitionTime"))
        cond.last_transition_time = timestamp(*x, child(ip, "lastTransitionTime"));
      cond.reason = opt_string(c, ip, "reason");
      cond.message = opt_string(c, ip, "message");
      st.conditions.push_back(std::move(cond));
    }
  }
  if (const Member ag = member(j, "aggregate")) {
    const Path ap = child(path, "aggregate");
    object(*ag, ap);
    m::Aggregate& a = st.aggregate;
    std::int32_t* slots[] = {&a.creating, &a.pending, &a.running, &a.succeeded,
                             &a.failed,   &a.unknown, &a.deleted};
    const char* names[] = {"creating", "pending", "running", "succeeded",
                           "failed",   "unknown", "deleted"};
    for (std::size_t k = 0; k < 7; ++k) {
      if (const Member x = member(*ag, names[k])) *slots[k] = int32(*x, child(ap, names[k]));
    }
  }
  if (const Member tasks = member(j, "tasks")) {
    const Path tp = child(path, "tasks");
    std::size_t i = 0;
    for (const auto& t : array(*tasks, tp).items()) {
      const Path ip = item(tp, i++);
      object(t, ip);
      m::TaskStatus task;
      task.type = string(need(t, ip, "type"), child(ip, "type"));
      if (const Member x = member(t, "restartCount"))
        task.restart_count = int32(*x, child(ip, "restartCount"));
      if (const Member reps = member(t, "replicas")) {
        std::size_t k = 0;
        const Path rsp = child(ip, "replicas");
        for (const auto& r : array(*reps, rsp).items()) {
          const Path rp = item(rsp, k++);
          object(r, rp);
          m::ReplicaStatus rs;
          rs.name = string(need(r, rp, "name"), child(rp, "name"));
          rs.uid = opt_string(r, rp, "uid");
          if (const Member x = member(r, "phase"))
            rs.phase = enumeration<m::ReplicaPhase>(*x, child(rp, "phase"));
          if (const Member x = member(r, "restartCount"))
            rs.restart_count = int32(*x, child(rp, "restartCount"));
          if (const Member cs = member(r, "containers")) {
            std::size_t q = 0;
            const Path csp = child(rp, "containers");
            for (const auto& c : array(*cs, csp).items()) {
              const Path cp = item(csp, q++);
              object(c, cp);
              m::ContainerStatus s;
              s.name = opt_string(c, cp, "name");
              s.state = opt_string(c, cp, "state");
              if (const Member x = member(c, "exitCode"))
                s.exit_code = int32(*x, child(cp, "exitCode"));
              rs.containers.push_back(std::move(s));
            }
          }
          task.replicas.push_back(std::move(rs));
        }
      }
      st.tasks.push_back(std::move(task));
    }
  }
  if (const Member x = member(j, "backoffCount"))
    st.backoff_count = int32(*x, child(path, "backoffCount"));
  if (const Member tb = member(j, "tensorboard")) {
    const Path tp = child(path, "tensorboard");
    object(*tb, tp);
    m::DependentStatus d;
    d.name = opt_string(*tb, tp, "name");
    if (const Member ref = member(*tb, "dependent")) {
      const Path rp = child(tp, "dependent");
      object(*ref, rp);
      d.dependent.api_version = opt_string(*ref, rp, "apiVersion");
      d.dependent.kind = opt_string(*ref, rp, "kind");
      d.dependent.name = opt_string(*ref, rp, "name");
      d.dependent.namespace_ = opt_string(*ref, rp, "namespace");
      d.dependent.uid = opt_string(*ref, rp, "uid");
    }
    if (const Member x = member(*tb, "ready")) d.ready = boolean(*x, child(tp, "ready"));
    d.reason = opt_string(*tb, tp, "reason");
    d.action = opt_string(*tb, tp, "action");
    d.note = opt_string(*tb, tp, "note");
    d.type = opt_string(*tb, tp, "type");
    st.tensorboard = std::move(d);
  }
  if (const Member x = member(j, "startTime"))
    st.start_time = timestamp(*x, child(path, "startTime"));
  if (const Member x = member(j, "completionTime"))
    st.completion_time = timestamp(*x, child(path, "completionTime"));
  if (const Member x = member(j, "activeSince"))
    st.active_since = timestamp(*x, child(path, "activeSince"));
  if (const Member x = member(j, "elasticReplicas"))
    st.elastic_replicas = int32(*x, child(path, "elasticReplicas"));
  return st;
}

// ---- controller options (controllers.options spellings, docs/controllers.md) ----

namespace {

using CO = controllers::ControllerOptions;

template <class E>
struct Names {
  std::initializer_list<std::pair<E, std::string_view>> list;
  std::string_view name(E e) const {
    for (const auto& [v, n] : list) {
      if (v == e) return n;
    }
    return "";
  }
  E value(const Value& j, const Path& path) const {
    const std::string s = string(j, path);
    std::string allowed;
    for (const auto& [v, n] : list) {
      if (n == s) return v;
      allowed += (allowed.empty() ? "" : ", ") + std::string(n);
    }
    bad(path, "one of " + allowed, j);
  }
};

const Names<CO::RetryableExitCodes> kRetryable{
    {{CO::RetryableExitCodes::T9kList, "t9k"},
     {CO::RetryableExitCodes::KubeflowAtLeast128, "kubeflow"}}};
const Names<CO::BackoffLimitRule> kBackoff{
    {{CO::BackoffLimitRule::MasterFailsAgain, "master-fails-again"},
     {CO::BackoffLimitRule::KubeflowReachLimit, "kubeflow-reach-limit"}}};
const Names<CO::PermanentFailureScope> kScope{
    {{CO::PermanentFailureScope::AnyReplica, "any-replica"},
     {CO::PermanentFailureScope::MasterOnly, "master-only"}}};
const Names<CO::MaxDurationHandling> kMaxDuration{
    {{CO::MaxDurationHandling::FailReplica, "fail-replica"},
     {CO::MaxDurationHandling::Recreate, "recreate"}}};
const Names<CO::RunningWhen> kRunning{{{CO::RunningWhen::AllPodsRunning, "all-pods-running"},
                                       {CO::RunningWhen::MasterRunning, "master-running"}}};
const Names<CO::GenericLimitScope> kLimit{{{CO::GenericLimitScope::PerReplica, "per-replica"},
                                           {CO::GenericLimitScope::PerType, "per-type"}}};
const Names<CO::ElasticSuccess> kSuccess{
    {{CO::ElasticSuccess::Master, "master"}, {CO::ElasticSuccess::AnyReplica, "any-replica"}}};

}  // namespace

void write_options(Writer& w, const CO& o) {
  w.begin_object().key("retryableExitCodes").string(kRetryable.name(o.retryable_exit_codes));
  w.key("t9kRetryableExitCodes").begin_array();
  for (const auto c : o.t9k_retryable_exit_codes) w.integer(c);
  w.end_array();
  w.key("backoffLimitRule").string(kBackoff.name(o.backoff_limit_rule));
  w.key("exitCodeIgnoresBackoffLimit").boolean(o.exit_code_ignores_backoff_limit);
  w.key("restartBackoff").boolean(o.restart_backoff);
  w.key("restartBackoffBaseMicros").integer(o.restart_backoff_base.count());
  w.key("restartBackoffCapMicros").integer(o.restart_backoff_cap.count());
  w.key("permanentFailureScope").string(kScope.name(o.permanent_failure_scope));
  w.key("maxDurationHandling").string(kMaxDuration.name(o.max_duration));
  w.key("runningWhen").string(kRunning.name(o.running_when));
  w.key("genericLimitScope").string(kLimit.name(o.generic_limit_scope));
  w.key("elasticSuccess").string(kSuccess.name(o.elastic_success));
  w.end_object();
}

CO decode_options(const Value& j, const Path& path) {
  object(j, path);
  CO o;
  auto field = [&](std::string_view key) { return child(path, key); };
  if (const Member x = member(j, "retryableExitCodes"))
    o.retryable_exit_codes = kRetryable.value(*x, field("retryableExitCodes"));
  if (const Member x = member(j, "t9kRetryableExitCodes")) {
    o.t9k_retryable_exit_codes.clear();
    std::size_t i = 0;
    const Path codes = field("t9kRetryableExitCodes");
    for (const auto& c : array(*x, codes).items())
      o.t9k_retryable_exit_codes.push_back(int32(c, item(codes, i++)));
  }
  if (const Member x = member(j, "backoffLimitRule"))
    o.backoff_limit_rule = kBackoff.value(*x, field("backoffLimitRule"));
  if (const Member x = member(j, "exitCodeIgnoresBackoffLimit"))
    o.exit_code_ignores_backoff_limit = boolean(*x, field("exitCodeIgnoresBackoffLimit"));
  if (const Member x = member(j, "restartBackoff"))
    o.restart_backoff = boolean(*x, field("restartBackoff"));
  if (const Member x = member(j, "restartBackoffBaseMicros"))
    o.restart_backoff_base = kernel::SimDuration{int64(*x, field("restartBackoffBaseMicros"))};
  if (const Member x = member(j, "restartBackoffCapMicros"))
    o.restart_backoff_cap = kernel::SimDuration{int64(*x, field("restartBackoffCapMicros"))};
  if (const Member x = member(j, "permanentFailureScope"))
    o.permanent_failure_scope = kScope.value(*x, field("permanentFailureScope"));
  if (const Member x = member(j, "maxDurationHandling"))
    o.max_duration = kMaxDuration.value(*x, field("maxDurationHandling"));
  if (const Member x = member(j, "runningWhen"))
    o.running_when = kRunning.value(*x, field("runningWhen"));
  if (const Member x = member(j, "genericLimitScope"))
    o.generic_limit_scope = kLimit.value(*x, field("genericLimitScope"));
  if (const Member x = member(j, "elasticSuccess"))
    o.elastic_success = kSuccess.value(*x, field("elasticSuccess"));
  return o;
}

}  // namespace t9k::protocol::detail
