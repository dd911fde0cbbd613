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

namespace {

// A pod's containerStatuses: the first terminated container's exit code and finish time (in a
// pod otherwise default).
m::Pod decode_pod_status_only(const Value& cs, const Path& csp) {
  m::Pod p;
  std::size_t k = 0;
  for (const auto& c : array(cs, csp).items()) {
    const Path kp = item(csp, k++);
    const Member state = member(object(c, kp), "state");
    const Path sp2 = child(kp, "state");
    const Member term = state ? member(object(*state, sp2), "terminated") : Member{};
    if (!term || p.exit_code) continue;  // the first terminated container's
    const Path tp = child(sp2, "terminated");
    object(*term, tp);
    if (const Member x = member(*term, "exitCode")) p.exit_code = int32(*x, child(tp, "exitCode"));
    if (const Member x = member(*term, "finishedAt"))
      p.finish_time = timestamp(*x, child(tp, "finishedAt"));
  }
  return p;
}

}  // namespace

void write_pod(Writer& w, const m::Pod& p) {
  w.begin_object().key("apiVersion").string("v1").key("kind").string("Pod");
  const m::Labels labels = m::pod_labels(p);  // §10's too, which the store keeps implied
  write_metadata(w.key("metadata"), p.metadata, p.deletion_timestamp, &labels);
  w.key("spec").begin_object();
  if (!p.node_name.empty()) w.key("nodeName").string(p.node_name);
  w.key("schedulerName").string(p.scheduler_name);
  w.key("priority").integer(p.priority);
  if (!p.node_selector.empty()) write_labels(w.key("nodeSelector"), p.node_selector);
  w.key("terminationGracePeriodSeconds").integer(p.termination_grace_period_seconds);
  w.key("containers").begin_array().begin_object().key("name").string("main");
  if (!p.command.empty()) write_strings(w.key("command"), p.command);
  if (!p.args.empty()) write_strings(w.key("args"), p.args);
  if (!p.requests->empty()) {
    w.key("resources").begin_object();
    write_resources(w.key("requests"), *p.requests);
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
        m::add_resources(p.requests.edit(), resources(*req, child(rp, "requests")));
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
      const m::Pod q = decode_pod_status_only(*cs, child(stp, "containerStatuses"));
      p.exit_code = q.exit_code;
      p.finish_time = q.finish_time;
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
  m::imply_standard_labels(p);  // as the store keeps a built-in controller's pod
  return p;
}

// ---- Pod changes in observed state, as merge patches ----

namespace {

// The pod with `from`'s observed state: what `from` would be had only its observed state changed.
m::Pod with_observed_of(m::Pod pod, const m::Pod& from) {
  pod.node_name = from.node_name;
  pod.gpu_index = from.gpu_index;
  pod.phase = from.phase;
  pod.exit_code = from.exit_code;
  pod.bind_time = from.bind_time;
  pod.start_time = from.start_time;
  pod.finish_time = from.finish_time;
  pod.deletion_timestamp = from.deletion_timestamp;
  pod.deletion_reason = from.deletion_reason;
  return pod;
}

template <class O, class F>  // O: a std::optional or model::OptionalTime
void patch_optional(Writer& w, std::string_view key, const O& v, F write) {
  if (v) {
    write(w.key(key), *v);
  } else {
    w.key(key).null();
  }
}

}  // namespace

bool observed_change_only(const m::Pod& before, const m::Pod& after) {
  return with_observed_of(before, after) == after;
}

void write_pod_patch(Writer& w, const m::Pod& a, const m::Pod& b) {
  w.begin_object().key("metadata").begin_object().key("uid").string(b.metadata.uid);
  if (a.deletion_timestamp != b.deletion_timestamp)
    patch_optional(w, "deletionTimestamp", b.deletion_timestamp, write_time);
  w.end_object();
  if (a.node_name != b.node_name) {
    w.key("spec").begin_object();
    if (b.node_name.empty()) {
      w.key("nodeName").null();
    } else {
      w.key("nodeName").string(b.node_name);
    }
    w.end_object();
  }
  const bool terminated_changed = a.exit_code != b.exit_code || a.finish_time != b.finish_time;
  if (a.phase != b.phase || a.start_time != b.start_time || terminated_changed) {
    w.key("status").begin_object();
    if (a.phase != b.phase) w.key("phase").string(m::to_string(b.phase));
    if (a.start_time != b.start_time) patch_optional(w, "startTime", b.start_time, write_time);
    if (terminated_changed) {
      if (!b.exit_code && !b.finish_time) {
        w.key("containerStatuses").null();
      } else {
        // An array is replaced whole (RFC 7386).
        w.key("containerStatuses").begin_array().begin_object().key("name").string("main");
        w.key("state").begin_object().key("terminated").begin_object();
        if (b.exit_code) w.key("exitCode").integer(*b.exit_code);
        if (b.finish_time) write_time(w.key("finishedAt"), *b.finish_time);
        w.end_object().end_object().end_object().end_array();
      }
    }
    w.end_object();
  }
  if (a.gpu_index != b.gpu_index || a.bind_time != b.bind_time ||
      a.deletion_reason != b.deletion_reason) {
    w.key("t9ksim").begin_object();
    if (a.gpu_index != b.gpu_index) {
      if (b.gpu_index >= 0) {
        w.key("gpuIndex").integer(b.gpu_index);
      } else {
        w.key("gpuIndex").null();
      }
    }
    if (a.bind_time != b.bind_time) patch_optional(w, "bindTime", b.bind_time, write_time);
    if (a.deletion_reason != b.deletion_reason) {
      patch_optional(w, "deletionReason", b.deletion_reason,
                     [](Writer& o, m::DeletionReason r) { o.string(m::to_string(r)); });
    }
    w.end_object();
  }
  w.end_object();
}

void apply_pod_patch(const Value& j, const Path& path, m::Pod& p) {
  object(j, path);
  auto time_field = [](const Value& obj, const Path& at, std::string_view key,
                       m::OptionalTime& out) {
    const Value x = obj.find(key);
    if (!x.present()) return;
    if (x.is_null()) {
      out.reset();
    } else {
      out = timestamp(x, child(at, key));
    }
  };
  if (const Member meta = member(j, "metadata")) {
    const Path mp = child(path, "metadata");
    time_field(object(*meta, mp), mp, "deletionTimestamp", p.deletion_timestamp);
  }
  if (const Member spec = member(j, "spec")) {
    const Path sp = child(path, "spec");
    if (const Value x = object(*spec, sp).find("nodeName"); x.present())
      p.node_name = x.is_null() ? std::string() : string(x, child(sp, "nodeName"));
  }
  if (const Member st = member(j, "status")) {
    const Path stp = child(path, "status");
    object(*st, stp);
    if (const Member x = member(*st, "phase"))
      p.phase = enumeration<m::PodPhase>(*x, child(stp, "phase"));
    time_field(*st, stp, "startTime", p.start_time);
    if (const Value cs = st->find("containerStatuses"); cs.present()) {
      p.exit_code.reset();
      p.finish_time.reset();
      if (!cs.is_null()) {
        // What decode_pod reads of a whole pod: the first terminated container's.
        m::Pod q = decode_pod_status_only(cs, child(stp, "containerStatuses"));
        p.exit_code = q.exit_code;
        p.finish_time = q.finish_time;
      }
    }
  }
  if (const Member ext = member(j, "t9ksim")) {
    const Path ep = child(path, "t9ksim");
    object(*ext, ep);
    if (const Value x = ext->find("gpuIndex"); x.present())
      p.gpu_index = x.is_null() ? -1 : int32(x, child(ep, "gpuIndex"));
    time_field(*ext, ep, "bindTime", p.bind_time);
    if (const Value x = ext->find("deletionReason"); x.present()) {
      if (x.is_null()) {
        p.deletion_reason.reset();
      } else {
        p.deletion_reason = deletion_reason(x, child(ep, "deletionReason"));
      }
    }
  }
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
