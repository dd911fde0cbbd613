// A controller plugin's own kinds (docs/plugins-go.md "Kinds of your own"): the rule it declares
// at initialize, the replica specs that rule finds in a job, and the phase it reads from the
// status the plugin writes.
#include <algorithm>

#include <fmt/format.h>

#include "protocol/objects.hpp"

namespace t9k::protocol {

namespace m = t9k::model;
using detail::Path;
using detail::Value;

namespace detail {

m::PluginKindRule decode_kind_rule(const Value& j, const Path& path) {
  object(j, path);
  m::PluginKindRule rule;
  rule.api_version = string(need(j, path, "apiVersion"), child(path, "apiVersion"));
  rule.kind = string(need(j, path, "kind"), child(path, "kind"));
  const Path rp = child(path, "replicaSpecs");
  const std::string where = string(need(j, path, "replicaSpecs"), rp);
  std::size_t start = 0;
  while (start <= where.size()) {
    const auto dot = std::min(where.find('.', start), where.size());
    rule.replica_specs.push_back(where.substr(start, dot - start));
    if (rule.replica_specs.back().empty())
      bad(rp, "a dotted path of members from the job's root, e.g. \"spec.pytorchReplicaSpecs\"",
          need(j, path, "replicaSpecs"));
    start = dot + 1;
  }
  const Path pp = child(path, "phases");
  std::size_t i = 0;
  for (const auto& x : array(need(j, path, "phases"), pp).items()) {
    const Path ip = item(pp, i++);
    object(x, ip);
    m::PluginKindRule::PhaseFrom f;
    f.condition = string(need(x, ip, "condition"), child(ip, "condition"));
    const Path php = child(ip, "phase");
    f.phase = enumeration<m::JobPhase>(need(x, ip, "phase"), php);
    // The world cannot pause a kind it does not know: those phases are the T9k controllers'.
    if (f.phase == m::JobPhase::Paused || f.phase == m::JobPhase::Resuming)
      bad(php, "Pending, Running, Succeeded, Failed or Unknown", need(x, ip, "phase"));
    rule.phases.push_back(std::move(f));
  }
  return rule;
}

m::JobStatus decode_plugin_status(const Value& j, const Path& path) {
  m::JobStatus st;
  st.plugin_status = std::string(object(j, path).raw());
  return st;
}

void write_kind_rule(Writer& w, const m::PluginKindRule& rule) {
  std::string where;
  for (const auto& k : rule.replica_specs) where += (where.empty() ? "" : ".") + k;
  w.begin_object().key("apiVersion").string(rule.api_version).key("kind").string(rule.kind);
  w.key("replicaSpecs").string(where).key("phases").begin_array();
  for (const auto& f : rule.phases) {
    w.begin_object().key("condition").string(f.condition);
    w.key("phase").string(m::to_string(f.phase)).end_object();
  }
  w.end_array().end_object();
}

}  // namespace detail

namespace {

m::PluginReplicaSpec replica(const Value& r, const Path& path, std::string type) {
  detail::object(r, path);
  m::PluginReplicaSpec out;
  out.type = std::move(type);
  if (const detail::Member n = detail::member(r, "replicas")) {
    out.replicas = detail::int32(*n, child(path, "replicas"));
    if (out.replicas < 0) detail::bad(child(path, "replicas"), "a count >= 0", *n);
  }
  out.template_ = detail::pod_template(detail::need(r, path, "template"), child(path, "template"));
  return out;
}

}  // namespace

std::vector<m::PluginReplicaSpec> plugin_replica_specs(const m::PluginJob& job,
                                                       const m::PluginKindRule& rule) {
  // The job as the simulator would send it: its root, with the spec the manifest gave.
  const std::string text = fmt::format(R"({{"spec":{}}})", job.spec.json);
  const auto doc = json::Document::parse(text, "the job");
  Value at = doc.root();
  // Paths are built from the rule's keys; they live as long as `rule`.
  std::vector<Path> path;
  path.reserve(rule.replica_specs.size() + 1);
  for (std::size_t i = 0; i < rule.replica_specs.size(); ++i) {
    const auto& key = rule.replica_specs[i];
    if (i == 0) {
      path.emplace_back(key.c_str());
      if (key != "spec")
        detail::bad(path.back(), fmt::format("the job has no member \"{}\" (the kind's "
                                             "replicaSpecs path starts at its spec)",
                                             key));
      at = at.find(key);
      continue;
    }
    path.emplace_back(path.back(), key);
    const Value next = at.find(key);
    if (!next.present())
      detail::bad(path.back(), "the replica specs (the kind's declared replicaSpecs)", next);
    at = next;
  }
  std::vector<m::PluginReplicaSpec> out;
  if (at.is_object()) {  // Kubeflow: type -> {replicas, template}
    for (const auto& mem : at.members())
      out.push_back(replica(mem.value, child(path.back(), mem.key), mem.key));
  } else if (at.is_array()) {  // a list of {name or type, replicas, template}
    std::size_t i = 0;
    for (const auto& x : at.items()) {
      const Path ip = item(path.back(), i++);
      detail::object(x, ip);
      const Value name = x.find("name").present() ? x.find("name") : x.find("type");
      out.push_back(replica(x, ip, name.present() ? detail::string(name, child(ip, "name")) : ""));
    }
  } else {
    detail::bad(path.back(), "an object of replica type -> {replicas, template}, or a list", at);
  }
  return out;
}

void read_plugin_status(const m::PluginKindRule& rule, const m::JobStatus& before, m::SimTime now,
                        m::JobStatus& status) {
  const std::string& text = *status.plugin_status;
  const auto doc = json::Document::parse(text, "status");
  const Path root("status");
  const Value st = doc.root();  // a handle into doc; object() returns its argument
  detail::object(st, root);
  struct Condition {
    std::string type, reason, message;
    bool true_;
  };
  std::vector<Condition> conditions;
  if (const detail::Member cs = detail::member(st, "conditions")) {
    const Path cp = child(root, "conditions");
    std::size_t i = 0;
    for (const auto& c : detail::array(*cs, cp).items()) {
      const Path ip = item(cp, i++);
      detail::object(c, ip);
      conditions.push_back({detail::string(detail::need(c, ip, "type"), child(ip, "type")),
                            detail::opt_string(c, ip, "reason"),
                            detail::opt_string(c, ip, "message"),
                            detail::opt_string(c, ip, "status") == "True"});
    }
  }
  m::JobPhase phase = m::JobPhase::Pending;
  const Condition* from = nullptr;
  for (const auto& f : rule.phases) {
    const auto c = std::find_if(conditions.begin(), conditions.end(),
                                [&](const auto& x) { return x.type == f.condition && x.true_; });
    if (c != conditions.end()) {
      phase = f.phase;
      from = &*c;
      break;
    }
  }
  status.phase = phase;
  // The condition that gave the phase, as the T9k kinds' Running or Completed condition: its
  // reason and message become the job's (jobs.csv "reason", events.jsonl).
  status.conditions.clear();
  if (from && phase != m::JobPhase::Pending) {
    m::JobCondition c;
    c.type = m::is_terminal(phase) ? m::JobConditionType::Completed : m::JobConditionType::Running;
    c.status = m::ConditionStatus::True;
    c.last_transition_time = now;
    for (const auto& b : before.conditions)
      if (b.type == c.type) c.last_transition_time = b.last_transition_time;
    c.reason = from->reason;
    c.message = from->message;
    status.conditions.push_back(std::move(c));
  }
  status.start_time = before.start_time ? before.start_time : m::OptionalTime(now);
  status.completion_time = before.completion_time;
  if (m::is_terminal(phase) && !status.completion_time) status.completion_time = now;
}

}  // namespace t9k::protocol
