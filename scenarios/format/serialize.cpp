// Objects to Kubernetes-style JSON. Every field the model keeps is written (unset optionals and
// empty lists are left out, and load back as unset and empty), so loading the output gives the
// same object back.
#include "scenarios/format/serialize.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace t9k::scenarios {

namespace m = t9k::model;
using Json = nlohmann::ordered_json;

// ---- timestamps ----

namespace {
// Howard Hinnant's civil-from-days and days-from-civil (proleptic Gregorian).
std::int64_t days_from_civil(std::int64_t y, unsigned mo, unsigned d) {
  y -= mo <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& mo, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  mo = mp < 10 ? mp + 3 : mp - 9;
  y += mo <= 2;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}
}  // namespace

std::string format_timestamp(m::SimTime t) {
  const std::int64_t us = t.time_since_epoch().count();
  std::int64_t secs = us / 1000000;
  std::int64_t frac = us % 1000000;
  if (frac < 0) {
    frac += 1000000;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  std::int64_t y = 0;
  unsigned mo = 0, d = 0;
  civil_from_days(days, y, mo, d);
  if (y < 0 || y > 9999) {  // outside four digits: the general (slower) path
    std::string s = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, mo, d, rem / 3600,
                                (rem / 60) % 60, rem % 60);
    if (frac != 0) s += fmt::format(".{:06}", frac);
    return s + "Z";
  }
  // "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" digit by digit: timestamps are printed on hot paths (plugins).
  char buf[32];
  auto put = [&buf](int at, std::int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) buf[at + i] = static_cast<char>('0' + v % 10);
  };
  put(0, y, 4);
  buf[4] = '-';
  put(5, mo, 2);
  buf[7] = '-';
  put(8, d, 2);
  buf[10] = 'T';
  put(11, rem / 3600, 2);
  buf[13] = ':';
  put(14, (rem / 60) % 60, 2);
  buf[16] = ':';
  put(17, rem % 60, 2);
  int n = 19;
  if (frac != 0) {
    buf[n++] = '.';
    put(n, frac, 6);
    n += 6;
  }
  buf[n++] = 'Z';
  return std::string(buf, static_cast<std::size_t>(n));
}

bool is_unset_time(std::string_view s) { return s == "0001-01-01T00:00:00Z"; }

bool parse_timestamp(std::string_view s, m::SimTime& out) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se)) {
    return false;
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] || h > 23 || mi > 59 || se > 59) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo == 2 && d == 29 && !leap) return false;
  std::size_t i = 19;
  std::int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::size_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (n < 6) {
        frac = frac * 10 + (s[i] - '0');
      } else if (s[i] != '0') {
        return false;  // finer than a microsecond: not representable exactly
      }
      ++i;
      ++n;
    }
    if (n == 0 || n > 9) return false;
    for (std::size_t k = n; k < 6; ++k) frac *= 10;
  }
  std::int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh = 0, om = 0;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !digits(s, i + 4, 2, om) || oh > 23 || om > 59) {
      return false;
    }
    offset = (oh * 3600 + om * 60) * (s[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  const std::int64_t secs =
      days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
      mi * 60 + se - offset;
  if (secs < 0) return false;
  out = m::SimTime{m::SimDuration{secs * 1000000 + frac}};
  return true;
}

// ---- objects ----

namespace {

Json resources(const m::ResourceList& r) {
  Json j = Json::object();
  for (const auto& [k, q] : r) j[k] = q.to_string();
  return j;
}

Json strings(const std::vector<std::string>& v) {
  Json j = Json::array();
  for (const auto& s : v) j.push_back(s);
  return j;
}

Json labels(const m::Labels& l) {
  Json j = Json::object();
  for (const auto& [k, v] : l) j[k] = v;
  return j;
}

Json metadata(const m::ObjectMeta& meta) {
  Json j = Json::object();
  if (!meta.name.empty()) j["name"] = meta.name;
  if (!meta.namespace_.empty()) j["namespace"] = meta.namespace_;
  if (!meta.labels.empty()) j["labels"] = labels(meta.labels);
  if (!meta.annotations->empty()) j["annotations"] = labels(*meta.annotations);
  if (!meta.uid.empty()) j["uid"] = meta.uid;
  if (meta.creation_timestamp) j["creationTimestamp"] = format_timestamp(*meta.creation_timestamp);
  if (!meta.owner_references.empty()) {
    Json refs = Json::array();
    for (const auto& r : meta.owner_references) {
      refs.push_back(Json{{"apiVersion", r.api_version},
                          {"kind", r.kind},
                          {"name", r.name},
                          {"uid", r.uid},
                          {"controller", r.controller}});
    }
    j["ownerReferences"] = std::move(refs);
  }
  return j;
}

Json container(const m::Container& c) {
  Json j = Json::object();
  if (!c.name.empty()) j["name"] = c.name;
  if (!c.image.empty()) j["image"] = c.image;
  if (!c.command.empty()) j["command"] = strings(c.command);
  if (!c.args.empty()) j["args"] = strings(c.args);
  Json res = Json::object();
  if (!c.resources.limits.empty()) res["limits"] = resources(c.resources.limits);
  if (!c.resources.requests.empty()) res["requests"] = resources(c.resources.requests);
  if (!res.empty()) j["resources"] = std::move(res);
  return j;
}

Json pod_template(const m::PodTemplateSpec& t) {
  Json j = Json::object();
  if (!(t.metadata == m::ObjectMeta{})) j["metadata"] = metadata(t.metadata);
  const m::PodSpec& p = t.spec;
  Json s = Json::object();
  if (!p.init_containers.empty()) {
    Json a = Json::array();
    for (const auto& c : p.init_containers) a.push_back(container(c));
    s["initContainers"] = std::move(a);
  }
  Json a = Json::array();
  for (const auto& c : p.containers) a.push_back(container(c));
  s["containers"] = std::move(a);
  if (!p.node_selector.empty()) s["nodeSelector"] = labels(p.node_selector);
  if (!p.scheduler_name.empty()) s["schedulerName"] = p.scheduler_name;
  if (!p.priority_class_name.empty()) s["priorityClassName"] = p.priority_class_name;
  if (p.priority) s["priority"] = *p.priority;
  if (!p.restart_policy.empty()) s["restartPolicy"] = p.restart_policy;
  if (p.termination_grace_period_seconds)
    s["terminationGracePeriodSeconds"] = *p.termination_grace_period_seconds;
  if (p.active_deadline_seconds) s["activeDeadlineSeconds"] = *p.active_deadline_seconds;
  if (!p.tolerations.empty()) {
    Json ts = Json::array();
    for (const auto& t : p.tolerations) {
      Json x = Json::object();
      if (!t.key.empty()) x["key"] = t.key;
      if (!t.op.empty()) x["operator"] = t.op;
      if (!t.value.empty()) x["value"] = t.value;
      if (!t.effect.empty()) x["effect"] = t.effect;
      ts.push_back(std::move(x));
    }
    s["tolerations"] = std::move(ts);
  }
  j["spec"] = std::move(s);
  return j;
}

void scheduler(Json& spec, const m::SchedulePolicy& s) {
  if (!s.t9k_scheduler) return;
  spec["scheduler"] = Json{{"t9kScheduler", Json{{"queue", s.t9k_scheduler->queue},
                                                 {"priority", s.t9k_scheduler->priority}}}};
}

void run_mode(Json& spec, const m::RunMode& mode) {
  if (mode == m::RunMode{}) return;
  Json j = Json::object();
  if (!(mode.debug == m::DebugMode{})) {
    Json d{{"enabled", mode.debug.enabled}};
    if (!mode.debug.replica_specs.empty()) {
      Json a = Json::array();
      for (const auto& s : mode.debug.replica_specs) {
        Json x{{"type", s.type}, {"skipInitContainer", s.skip_init_container}};
        if (!s.command.empty()) x["command"] = strings(s.command);
        a.push_back(std::move(x));
      }
      d["replicaSpecs"] = std::move(a);
    }
    j["debug"] = std::move(d);
  }
  if (!(mode.pause == m::PauseMode{})) {
    Json p{{"enabled", mode.pause.enabled}};
    if (!mode.pause.resume_specs.empty()) {
      Json a = Json::array();
      for (const auto& s : mode.pause.resume_specs) {
        Json x{{"type", s.type}, {"skipInitContainer", s.skip_init_container}};
        if (!s.command.empty()) x["command"] = strings(s.command);
        if (!s.args.empty()) x["args"] = strings(s.args);
        a.push_back(std::move(x));
      }
      p["resumeSpecs"] = std::move(a);
    }
    j["pause"] = std::move(p);
  }
  spec["runMode"] = std::move(j);
}

Json run_policy(const m::RunPolicy& p) {
  Json j = Json::object();
  if (p.active_deadline_seconds) j["activeDeadlineSeconds"] = *p.active_deadline_seconds;
  j["backoffLimit"] = p.backoff_limit;
  j["cleanUpPolicy"] = m::to_string(p.clean_up_policy);
  return j;
}

void elastic(Json& spec, const std::optional<m::ElasticConfig>& e) {
  if (!e) return;
  spec["elastic"] = Json{{"enabled", e->enabled},
                         {"minReplicas", e->min_replicas},
                         {"maxReplicas", e->max_replicas},
                         {"expectedReplicas", e->expected_replicas}};
}

Json finish_rules(const std::vector<m::FinishRule>& rules) {
  Json a = Json::array();
  for (const auto& r : rules) {
    Json x = Json::object();
    for (const auto& [type, ranks] : r.replicas) {
      Json rs = Json::array();
      for (auto k : ranks) rs.push_back(k);
      x[type] = std::move(rs);
    }
    a.push_back(std::move(x));
  }
  return a;
}

Json job_status(const m::JobStatus& st) {
  if (st.plugin_status) return Json::parse(*st.plugin_status);  // a PluginJob's, as written
  Json j = Json::object();
  if (st.phase) j["phase"] = m::to_string(*st.phase);
  if (!st.conditions.empty()) {
    Json a = Json::array();
    for (const auto& c : st.conditions) {
      Json x{{"type", m::to_string(c.type)},
             {"status", m::to_string(c.status)},
             {"lastTransitionTime", format_timestamp(c.last_transition_time)}};
      if (!c.reason.empty()) x["reason"] = c.reason;
      if (!c.message.empty()) x["message"] = c.message;
      a.push_back(std::move(x));
    }
    j["conditions"] = std::move(a);
  }
  const m::Aggregate& ag = st.aggregate;
  j["aggregate"] =
      Json{{"creating", ag.creating},   {"pending", ag.pending}, {"running", ag.running},
           {"succeeded", ag.succeeded}, {"failed", ag.failed},   {"unknown", ag.unknown},
           {"deleted", ag.deleted}};
  if (!st.tasks.empty()) {
    Json a = Json::array();
    for (const auto& t : st.tasks) {
      Json reps = Json::array();
      for (const auto& r : t.replicas) {
        Json cs = Json::array();
        for (const auto& c : r.containers) {
          Json x{{"name", c.name}};
          if (!c.state.empty()) x["state"] = c.state;
          if (c.exit_code) x["exitCode"] = *c.exit_code;
          cs.push_back(std::move(x));
        }
        Json rj{{"name", r.name}};
        if (!r.uid.empty()) rj["uid"] = r.uid;
        rj["phase"] = m::to_string(r.phase);
        if (!cs.empty()) rj["containers"] = std::move(cs);
        if (r.restart_count) rj["restartCount"] = r.restart_count;
        reps.push_back(std::move(rj));
      }
      Json tj{{"type", t.type}, {"restartCount", t.restart_count}};
      if (!reps.empty()) tj["replicas"] = std::move(reps);
      a.push_back(std::move(tj));
    }
    j["tasks"] = std::move(a);
  }
  if (st.backoff_count) j["backoffCount"] = *st.backoff_count;
  if (st.tensorboard) {
    const auto& d = *st.tensorboard;
    Json ref = Json::object();
    if (!d.dependent.api_version.empty()) ref["apiVersion"] = d.dependent.api_version;
    if (!d.dependent.kind.empty()) ref["kind"] = d.dependent.kind;
    if (!d.dependent.name.empty()) ref["name"] = d.dependent.name;
    if (!d.dependent.namespace_.empty()) ref["namespace"] = d.dependent.namespace_;
    if (!d.dependent.uid.empty()) ref["uid"] = d.dependent.uid;
    Json x = Json::object();
    if (!d.name.empty()) x["name"] = d.name;
    x["dependent"] = std::move(ref);
    x["ready"] = d.ready;
    if (!d.reason.empty()) x["reason"] = d.reason;
    if (!d.action.empty()) x["action"] = d.action;
    if (!d.note.empty()) x["note"] = d.note;
    if (!d.type.empty()) x["type"] = d.type;
    j["tensorboard"] = std::move(x);
  }
  if (st.start_time) j["startTime"] = format_timestamp(*st.start_time);
  if (st.completion_time) j["completionTime"] = format_timestamp(*st.completion_time);
  if (st.active_since) j["activeSince"] = format_timestamp(*st.active_since);
  if (st.elastic_replicas) j["elasticReplicas"] = *st.elastic_replicas;
  return j;
}

Json head(std::string_view api, std::string_view kind, const m::ObjectMeta& meta) {
  return Json{{"apiVersion", api}, {"kind", kind}, {"metadata", metadata(meta)}};
}

Json generic(const m::GenericJob& job) {
  Json j = head(m::kBatchApiVersion, "GenericJob", job.metadata);
  const auto& s = job.spec;
  Json spec = Json::object();
  if (!s.success_rules.empty()) spec["successRules"] = finish_rules(s.success_rules);
  if (!s.failure_rules.empty()) spec["failureRules"] = finish_rules(s.failure_rules);
  if (s.service) {
    Json ports = Json::array();
    for (const auto& p : s.service->ports)
      ports.push_back(Json{{"name", p.name}, {"port", p.port}});
    spec["service"] = Json{{"ports", std::move(ports)}};
  }
  run_mode(spec, *s.run_mode);
  spec["cleanUpPolicy"] = m::to_string(s.clean_up_policy);
  scheduler(spec, s.scheduler);
  Json reps = Json::array();
  for (const auto& r : s.replica_specs) {
    reps.push_back(Json{{"type", r.type},
                        {"replicas", r.replicas},
                        {"restartPolicy", Json{{"policy", m::to_string(r.restart_policy.policy)},
                                               {"limit", r.restart_policy.limit}}},
                        {"template", pod_template(*r.template_)}});
  }
  spec["replicaSpecs"] = std::move(reps);
  j["spec"] = std::move(spec);
  if (!(job.status == m::JobStatus{})) j["status"] = job_status(job.status);
  return j;
}

Json pytorch(const m::PyTorchTrainingJob& job) {
  Json j = head(m::kBatchApiVersion, "PyTorchTrainingJob", job.metadata);
  const auto& s = job.spec;
  Json spec = Json::object();
  Json reps = Json::array();
  for (const auto& r : s.replica_specs) {
    Json x{{"type", r.type}, {"replicas", r.replicas}};
    if (r.scaling_weight) x["scalingWeight"] = *r.scaling_weight;
    x["restartPolicy"] = m::to_string(r.restart_policy);
    x["template"] = pod_template(*r.template_);
    reps.push_back(std::move(x));
  }
  spec["replicaSpecs"] = std::move(reps);
  elastic(spec, s.elastic);
  if (s.torchrun_config) {
    const auto& t = *s.torchrun_config;
    Json x{{"enabled", t.enabled},
           {"maxRestarts", t.max_restarts},
           {"procPerNode", t.proc_per_node},
           {"rdzvBackend", m::to_string(t.rdzv_backend)}};
    if (!t.extra_options.empty()) x["extraOptions"] = strings(t.extra_options);
    spec["torchrunConfig"] = std::move(x);
  }
  run_mode(spec, *s.run_mode);
  spec["runPolicy"] = run_policy(s.run_policy);
  if (s.tensorboard_spec) {
    Json x = Json::object();
    if (!s.tensorboard_spec->image.empty()) x["image"] = s.tensorboard_spec->image;
    if (!s.tensorboard_spec->training_log_filesets.empty()) {
      x["trainingLogFilesets"] = strings(s.tensorboard_spec->training_log_filesets);
    }
    spec["tensorboardSpec"] = std::move(x);
  }
  scheduler(spec, s.scheduler);
  j["spec"] = std::move(spec);
  if (!(job.status == m::JobStatus{})) j["status"] = job_status(job.status);
  return j;
}

Json deepspeed(const m::DeepSpeedJob& job) {
  Json j = head(m::kBatchApiVersion, "DeepSpeedJob", job.metadata);
  const auto& s = job.spec;
  Json spec = Json::object();
  scheduler(spec, s.scheduler);
  spec["runPolicy"] = run_policy(s.run_policy);
  run_mode(spec, *s.run_mode);
  elastic(spec, s.elastic);
  const auto& c = *s.config;
  Json cfg = Json::object();
  if (c.custom_command) cfg["customCommand"] = *c.custom_command;
  if (c.slots_per_worker) cfg["slotsPerWorker"] = *c.slots_per_worker;
  cfg["localRank"] = c.local_rank;
  cfg["autotune"] = m::to_string(c.autotune);
  Json run = Json::object();
  if (c.run.python) run["python"] = strings(*c.run.python);
  if (c.run.module) run["module"] = strings(*c.run.module);
  if (c.run.exec) run["exec"] = strings(*c.run.exec);
  if (!run.empty()) cfg["run"] = std::move(run);
  if (!c.other_args.empty()) cfg["otherArgs"] = strings(c.other_args);
  spec["config"] = std::move(cfg);
  spec["disableCustomEnv"] = s.disable_custom_env;
  spec["worker"] = Json{{"replicas", s.worker.replicas},
                        {"restartPolicy", m::to_string(s.worker.restart_policy)},
                        {"template", pod_template(*s.worker.template_)}};
  j["spec"] = std::move(spec);
  if (!(job.status == m::JobStatus{})) j["status"] = job_status(job.status);
  return j;
}

Json selector(const m::LabelSelector& s) {
  Json j = Json::object();
  if (!s.match_labels.empty()) j["matchLabels"] = labels(s.match_labels);
  if (!s.match_expressions.empty()) {
    Json a = Json::array();
    for (const auto& e : s.match_expressions) {
      Json x{{"key", e.key}, {"operator", m::to_string(e.op)}};
      if (!e.values.empty()) x["values"] = strings(e.values);
      a.push_back(std::move(x));
    }
    j["matchExpressions"] = std::move(a);
  }
  return j;
}

Json queue(const m::Queue& q) {
  Json j = head(m::kSchedulerApiVersion, "Queue", q.metadata);
  const auto& s = q.spec;
  Json spec = Json::object();
  if (s.quota) spec["quota"] = Json{{"requests", resources(*s.quota)}};
  spec["priority"] = s.priority;
  if (s.preemptible) spec["preemptible"] = *s.preemptible;
  spec["closed"] = s.closed;
  if (!s.max_duration_text.empty()) {
    spec["maxDuration"] = s.max_duration_text;
  } else if (s.max_duration) {
    spec["maxDuration"] = kernel::format_duration(*s.max_duration);
  }
  if (!s.resource_shape_profile.empty()) spec["resourceShapeProfile"] = s.resource_shape_profile;
  if (s.node_selector) spec["nodeSelector"] = selector(*s.node_selector);
  if (s.namespace_selector) spec["namespaceSelector"] = selector(*s.namespace_selector);
  j["spec"] = std::move(spec);
  if (!(q.status == m::QueueStatus{})) {
    const auto& st = q.status;
    j["status"] = Json{{"allocated", resources(st.allocated)},
                       {"podGroups", Json{{"total", st.pod_groups}}},
                       {"pods", Json{{"pending", st.pods_pending},
                                     {"running", st.pods_running},
                                     {"succeeded", st.pods_succeeded},
                                     {"failed", st.pods_failed},
                                     {"unknown", st.pods_unknown}}}};
  }
  return j;
}

Json pod_group(const m::PodGroup& g) {
  Json j = head(m::kSchedulerApiVersion, "PodGroup", g.metadata);
  const auto& s = g.spec;
  Json spec{{"minMember", s.min_member}};
  if (!s.roles.empty()) {
    Json a = Json::array();
    for (const auto& r : s.roles) a.push_back(Json{{"name", r.name}, {"minMember", r.min_member}});
    spec["roles"] = std::move(a);
  }
  spec["queue"] = s.queue;
  spec["priority"] = s.priority;
  if (!s.topology_policy.empty()) spec["topologyPolicy"] = s.topology_policy;
  if (s.finished) spec["finished"] = true;
  j["spec"] = std::move(spec);
  if (!(g.status == m::PodGroupStatus{})) {
    const auto& st = g.status;
    auto cond = [](const char* type, bool v) {
      return Json{{"type", type}, {"status", v ? "True" : "False"}};
    };
    j["status"] = Json{
        {"conditions", Json::array({cond("GroupScheduled", st.group_scheduled),
                                    cond("SufficientGroupMember", st.sufficient_group_member)})},
        {"allocated", resources(st.allocated)},
        {"pending", st.pending},
        {"running", st.running},
        {"succeeded", st.succeeded},
        {"failed", st.failed},
        {"unknown", st.unknown}};
  }
  return j;
}

}  // namespace

namespace {
// The spec and the controller's status as they were written (JSON text kept by the model).
Json plugin_job(const m::PluginJob& job) {
  Json j = head(job.api_version, job.kind, job.metadata);
  j["spec"] = Json::parse(job.spec.json);
  if (job.status.plugin_status) j["status"] = Json::parse(*job.status.plugin_status);
  return j;
}

Json encode(const Object& object) {
  return std::visit(
      [](const auto& o) -> Json {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, m::GenericJob>) return generic(o);
        if constexpr (std::is_same_v<T, m::PyTorchTrainingJob>) return pytorch(o);
        if constexpr (std::is_same_v<T, m::DeepSpeedJob>) return deepspeed(o);
        if constexpr (std::is_same_v<T, m::Queue>) return queue(o);
        if constexpr (std::is_same_v<T, m::PodGroup>) return pod_group(o);
        if constexpr (std::is_same_v<T, m::PluginJob>) return plugin_job(o);
      },
      object);
}
}  // namespace

std::string to_json(const Object& object) {
  // Invalid UTF-8 (possible only in strings from a malformed file) is replaced, not thrown on.
  return encode(object).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_compact_json(const Object& object) {
  return encode(object).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string to_compact_json(const m::JobStatus& status) {
  return job_status(status).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string to_json_stream(const std::vector<Object>& objects) {
  std::string out;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (i) out += "---\n";
    out += to_json(objects[i]);
  }
  return out;
}

std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace t9k::scenarios
