// Job statuses on the wire: whole (as scenarios/format prints them, byte for byte) and as a JSON
// merge patch (RFC 7386) against the status the other side keeps (docs/protocol-v2.md §2): a
// plugin's answer sends what changed (usually the aggregate and the replicas), not the whole.
// A whole status read is a patch applied to an empty status.
#include <fmt/format.h>

#include "protocol/envelope.hpp"
#include "protocol/objects.hpp"

namespace t9k::protocol::detail {

namespace m = t9k::model;

namespace {

void write_conditions(Writer& w, const std::vector<m::JobCondition>& conditions) {
  w.begin_array();
  for (const auto& c : conditions) {
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

void write_aggregate(Writer& w, const m::Aggregate& ag) {
  w.begin_object().key("creating").integer(ag.creating).key("pending").integer(ag.pending);
  w.key("running").integer(ag.running).key("succeeded").integer(ag.succeeded);
  w.key("failed").integer(ag.failed).key("unknown").integer(ag.unknown);
  w.key("deleted").integer(ag.deleted).end_object();
}

void write_tasks(Writer& w, const std::vector<m::TaskStatus>& tasks) {
  w.begin_array();
  for (const auto& t : tasks) {
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

// A string member written when not empty; in a patch, one that became empty is null.
void text(Writer& w, std::string_view key, const std::string& now, const std::string* before) {
  if (!now.empty()) {
    w.key(key).string(now);
  } else if (before && !before->empty()) {
    w.key(key).null();
  }
}

// `before`: in a patch, what the other side keeps (its members that are gone become null).
void write_dependent(Writer& w, const m::DependentStatus& d, const m::DependentStatus* before) {
  w.begin_object();
  text(w, "name", d.name, before ? &before->name : nullptr);
  w.key("dependent").begin_object();
  const auto* b = before ? &before->dependent : nullptr;
  text(w, "apiVersion", d.dependent.api_version, b ? &b->api_version : nullptr);
  text(w, "kind", d.dependent.kind, b ? &b->kind : nullptr);
  text(w, "name", d.dependent.name, b ? &b->name : nullptr);
  text(w, "namespace", d.dependent.namespace_, b ? &b->namespace_ : nullptr);
  text(w, "uid", d.dependent.uid, b ? &b->uid : nullptr);
  w.end_object().key("ready").boolean(d.ready);
  text(w, "reason", d.reason, before ? &before->reason : nullptr);
  text(w, "action", d.action, before ? &before->action : nullptr);
  text(w, "note", d.note, before ? &before->note : nullptr);
  text(w, "type", d.type, before ? &before->type : nullptr);
  w.end_object();
}

template <class O, class F>  // O: a std::optional or model::OptionalTime
void optional_field(Writer& w, std::string_view key, const O& v, F write) {
  if (v) {
    write(w.key(key), *v);
  } else {
    w.key(key).null();
  }
}

void put_int(Writer& w, std::int32_t v) { w.integer(v); }

}  // namespace

void write_status(Writer& w, const m::JobStatus& st) {
  if (st.plugin_status) {  // a plugin's own kind: its status as the plugin wrote it
    w.raw(*st.plugin_status);
    return;
  }
  w.begin_object();
  if (st.phase) w.key("phase").string(m::to_string(*st.phase));
  if (!st.conditions.empty()) write_conditions(w.key("conditions"), st.conditions);
  write_aggregate(w.key("aggregate"), st.aggregate);
  if (!st.tasks.empty()) write_tasks(w.key("tasks"), st.tasks);
  if (st.backoff_count) w.key("backoffCount").integer(*st.backoff_count);
  if (st.tensorboard) write_dependent(w.key("tensorboard"), *st.tensorboard, nullptr);
  if (st.start_time) write_time(w.key("startTime"), *st.start_time);
  if (st.completion_time) write_time(w.key("completionTime"), *st.completion_time);
  if (st.active_since) write_time(w.key("activeSince"), *st.active_since);
  if (st.elastic_replicas) w.key("elasticReplicas").integer(*st.elastic_replicas);
  w.end_object();
}

void write_status_patch(Writer& w, const m::JobStatus& before, const m::JobStatus& st) {
  w.begin_object();
  if (st.phase != before.phase) {
    optional_field(w, "phase", st.phase,
                   [](Writer& o, m::JobPhase p) { o.string(m::to_string(p)); });
  }
  if (st.conditions != before.conditions) {
    if (st.conditions.empty()) {
      w.key("conditions").null();
    } else {
      write_conditions(w.key("conditions"), st.conditions);
    }
  }
  if (!(st.aggregate == before.aggregate)) write_aggregate(w.key("aggregate"), st.aggregate);
  if (st.tasks != before.tasks) {
    if (st.tasks.empty()) {
      w.key("tasks").null();
    } else {
      write_tasks(w.key("tasks"), st.tasks);
    }
  }
  if (st.backoff_count != before.backoff_count)
    optional_field(w, "backoffCount", st.backoff_count, put_int);
  if (st.tensorboard != before.tensorboard) {
    if (!st.tensorboard) {
      w.key("tensorboard").null();
    } else {
      write_dependent(w.key("tensorboard"), *st.tensorboard,
                      before.tensorboard ? &*before.tensorboard : nullptr);
    }
  }
  if (st.start_time != before.start_time) optional_field(w, "startTime", st.start_time, write_time);
  if (st.completion_time != before.completion_time)
    optional_field(w, "completionTime", st.completion_time, write_time);
  if (st.active_since != before.active_since)
    optional_field(w, "activeSince", st.active_since, write_time);
  if (st.elastic_replicas != before.elastic_replicas)
    optional_field(w, "elasticReplicas", st.elastic_replicas, put_int);
  w.end_object();
}

namespace {

std::vector<m::JobCondition> read_conditions(const Value& j, const Path& cp) {
  std::vector<m::JobCondition> out;
  std::size_t i = 0;
  for (const auto& c : array(j, cp).items()) {
    const Path ip = item(cp, i++);
    object(c, ip);
    m::JobCondition cond;
    cond.type = enumeration<m::JobConditionType>(need(c, ip, "type"), child(ip, "type"));
    cond.status = enumeration<m::ConditionStatus>(need(c, ip, "status"), child(ip, "status"));
    if (const Member x = member(c, "lastTransitionTime"))
      cond.last_transition_time = timestamp(*x, child(ip, "lastTransitionTime"));
    cond.reason = opt_string(c, ip, "reason");
    cond.message = opt_string(c, ip, "message");
    out.push_back(std::move(cond));
  }
  return out;
}

void merge_aggregate(const Value& j, const Path& ap, m::Aggregate& a) {
  object(j, ap);
  std::int32_t* slots[] = {&a.creating, &a.pending, &a.running, &a.succeeded,
                           &a.failed,   &a.unknown, &a.deleted};
  const char* names[] = {"creating", "pending", "running", "succeeded",
                         "failed",   "unknown", "deleted"};
  for (std::size_t k = 0; k < 7; ++k) {
    const Value x = merge_member(j, names[k]);
    if (x.present()) *slots[k] = x.is_null() ? 0 : int32(x, child(ap, names[k]));
  }
}

m::ReplicaStatus read_replica(const Value& r, const Path& rp) {
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
      if (const Member x = member(c, "exitCode")) s.exit_code = int32(*x, child(cp, "exitCode"));
      rs.containers.push_back(std::move(s));
    }
  }
  return rs;
}

std::vector<m::TaskStatus> read_tasks(const Value& j, const Path& tp) {
  std::vector<m::TaskStatus> out;
  std::size_t i = 0;
  for (const auto& t : array(j, tp).items()) {
    const Path ip = item(tp, i++);
    object(t, ip);
    m::TaskStatus task;
    task.type = string(need(t, ip, "type"), child(ip, "type"));
    if (const Member x = member(t, "restartCount"))
      task.restart_count = int32(*x, child(ip, "restartCount"));
    if (const Member reps = member(t, "replicas")) {
      std::size_t k = 0;
      const Path rsp = child(ip, "replicas");
      for (const auto& r : array(*reps, rsp).items())
        task.replicas.push_back(read_replica(r, item(rsp, k++)));
    }
    out.push_back(std::move(task));
  }
  return out;
}

void merge_text(const Value& obj, const Path& path, std::string_view key, std::string& out) {
  const Value x = merge_member(obj, key);
  if (x.present()) out = x.is_null() ? std::string() : string(x, child(path, key));
}

void merge_dependent(const Value& j, const Path& tp, m::DependentStatus& d) {
  object(j, tp);
  merge_text(j, tp, "name", d.name);
  if (const Value ref = merge_member(j, "dependent"); ref.present()) {
    if (ref.is_null()) {
      d.dependent = {};
    } else {
      const Path rp = child(tp, "dependent");
      object(ref, rp);
      merge_text(ref, rp, "apiVersion", d.dependent.api_version);
      merge_text(ref, rp, "kind", d.dependent.kind);
      merge_text(ref, rp, "name", d.dependent.name);
      merge_text(ref, rp, "namespace", d.dependent.namespace_);
      merge_text(ref, rp, "uid", d.dependent.uid);
    }
  }
  if (const Value x = merge_member(j, "ready"); x.present())
    d.ready = !x.is_null() && boolean(x, child(tp, "ready"));
  merge_text(j, tp, "reason", d.reason);
  merge_text(j, tp, "action", d.action);
  merge_text(j, tp, "note", d.note);
  merge_text(j, tp, "type", d.type);
}

}  // namespace

void apply_status_patch(const Value& j, const Path& path, m::JobStatus& st) {
  object(j, path);
  merge_optional(j, path, "phase", st.phase, enumeration<m::JobPhase>);
  if (const Value x = merge_member(j, "conditions"); x.present())
    st.conditions = x.is_null() ? std::vector<m::JobCondition>{}
                                : read_conditions(x, child(path, "conditions"));
  if (const Value x = merge_member(j, "aggregate"); x.present()) {
    if (x.is_null()) {
      st.aggregate = {};
    } else {
      merge_aggregate(x, child(path, "aggregate"), st.aggregate);
    }
  }
  if (const Value x = merge_member(j, "tasks"); x.present())
    st.tasks = x.is_null() ? std::vector<m::TaskStatus>{} : read_tasks(x, child(path, "tasks"));
  merge_optional(j, path, "backoffCount", st.backoff_count, int32);
  if (const Value x = merge_member(j, "tensorboard"); x.present()) {
    if (x.is_null()) {
      st.tensorboard.reset();
    } else {
      if (!st.tensorboard) st.tensorboard.emplace();
      merge_dependent(x, child(path, "tensorboard"), *st.tensorboard);
    }
  }
  merge_optional(j, path, "startTime", st.start_time, timestamp);
  merge_optional(j, path, "completionTime", st.completion_time, timestamp);
  merge_optional(j, path, "activeSince", st.active_since, timestamp);
  merge_optional(j, path, "elasticReplicas", st.elastic_replicas, int32);
}

m::JobStatus decode_status(const Value& j, const Path& path) {
  m::JobStatus st;
  apply_status_patch(j, path, st);
  return st;
}

}  // namespace t9k::protocol::detail
