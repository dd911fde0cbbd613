// Jobs on the wire: the manifest JSON scenarios/format writes (to_compact_json), read back here
// without YAML. Only the simulator sends jobs, so this reads what that encoder writes, field by
// field; a job crosses the wire unchanged (tests/protocol/ round-trips random histories).
#include <fmt/format.h>

#include "protocol/objects.hpp"

namespace t9k::protocol::detail {

namespace m = t9k::model;

namespace {

std::vector<std::int32_t> ints(const Value& j, const Path& path) {
  std::vector<std::int32_t> out;
  std::size_t i = 0;
  for (const auto& x : array(j, path).items()) out.push_back(int32(x, item(path, i++)));
  return out;
}

m::Container container(const Value& j, const Path& path) {
  object(j, path);
  m::Container c;
  c.name = opt_string(j, path, "name");
  c.image = opt_string(j, path, "image");
  if (const Member x = member(j, "command")) c.command = strings(*x, child(path, "command"));
  if (const Member x = member(j, "args")) c.args = strings(*x, child(path, "args"));
  if (const Member r = member(j, "resources")) {
    const Path rp = child(path, "resources");
    object(*r, rp);
    if (const Member x = member(*r, "limits"))
      c.resources.limits = resources(*x, child(rp, "limits"));
    if (const Member x = member(*r, "requests"))
      c.resources.requests = resources(*x, child(rp, "requests"));
  }
  return c;
}

std::vector<m::Container> containers(const Value& j, const Path& path) {
  std::vector<m::Container> out;
  std::size_t i = 0;
  for (const auto& c : array(j, path).items()) out.push_back(container(c, item(path, i++)));
  return out;
}

}  // namespace

m::PodTemplateSpec pod_template(const Value& j, const Path& path) {
  object(j, path);
  m::PodTemplateSpec t;
  if (const Member x = member(j, "metadata")) t.metadata = metadata(*x, child(path, "metadata"));
  const Path sp = child(path, "spec");
  const Value s = need(j, path, "spec");
  object(s, sp);
  m::PodSpec& p = t.spec;
  if (const Member x = member(s, "initContainers"))
    p.init_containers = containers(*x, child(sp, "initContainers"));
  if (const Member x = member(s, "containers"))
    p.containers = containers(*x, child(sp, "containers"));
  if (const Member x = member(s, "nodeSelector"))
    p.node_selector = labels(*x, child(sp, "nodeSelector"));
  p.scheduler_name = opt_string(s, sp, "schedulerName");
  p.priority_class_name = opt_string(s, sp, "priorityClassName");
  if (const Member x = member(s, "priority")) p.priority = int32(*x, child(sp, "priority"));
  p.restart_policy = opt_string(s, sp, "restartPolicy");
  if (const Member x = member(s, "terminationGracePeriodSeconds")) {
    p.termination_grace_period_seconds = int64(*x, child(sp, "terminationGracePeriodSeconds"));
  }
  if (const Member x = member(s, "activeDeadlineSeconds"))
    p.active_deadline_seconds = int64(*x, child(sp, "activeDeadlineSeconds"));
  if (const Member ts = member(s, "tolerations")) {
    const Path tp = child(sp, "tolerations");
    std::size_t i = 0;
    for (const auto& t2 : array(*ts, tp).items()) {
      const Path ip = item(tp, i++);
      object(t2, ip);
      p.tolerations.push_back({opt_string(t2, ip, "key"), opt_string(t2, ip, "operator"),
                               opt_string(t2, ip, "value"), opt_string(t2, ip, "effect")});
    }
  }
  return t;
}

namespace {

m::SchedulePolicy scheduler(const Value& spec, const Path& path) {
  m::SchedulePolicy s;
  const Member x = member(spec, "scheduler");
  if (!x) return s;
  const Path sp = child(path, "scheduler");
  const Member t = member(object(*x, sp), "t9kScheduler");
  if (!t) return s;
  const Path tp = child(sp, "t9kScheduler");
  object(*t, tp);
  m::T9kScheduler t9k;
  t9k.queue = opt_string(*t, tp, "queue");
  if (const Member p = member(*t, "priority")) t9k.priority = int32(*p, child(tp, "priority"));
  s.t9k_scheduler = t9k;
  return s;
}

m::RunMode run_mode(const Value& spec, const Path& path) {
  m::RunMode r;
  const Member x = member(spec, "runMode");
  if (!x) return r;
  const Path rp = child(path, "runMode");
  object(*x, rp);
  if (const Member d = member(*x, "debug")) {
    const Path dp = child(rp, "debug");
    object(*d, dp);
    if (const Member e = member(*d, "enabled")) r.debug.enabled = boolean(*e, child(dp, "enabled"));
    if (const Member specs = member(*d, "replicaSpecs")) {
      const Path sp = child(dp, "replicaSpecs");
      std::size_t i = 0;
      for (const auto& s : array(*specs, sp).items()) {
        const Path ip = item(sp, i++);
        object(s, ip);
        m::ReplicaDebugSet set;
        set.type = opt_string(s, ip, "type");
        if (const Member k = member(s, "skipInitContainer"))
          set.skip_init_container = boolean(*k, child(ip, "skipInitContainer"));
        if (const Member c = member(s, "command")) set.command = strings(*c, child(ip, "command"));
        r.debug.replica_specs.push_back(std::move(set));
      }
    }
  }
  if (const Member p = member(*x, "pause")) {
    const Path pp = child(rp, "pause");
    object(*p, pp);
    if (const Member e = member(*p, "enabled")) r.pause.enabled = boolean(*e, child(pp, "enabled"));
    if (const Member specs = member(*p, "resumeSpecs")) {
      const Path sp = child(pp, "resumeSpecs");
      std::size_t i = 0;
      for (const auto& s : array(*specs, sp).items()) {
        const Path ip = item(sp, i++);
        object(s, ip);
        m::ResumeSpec rs;
        rs.type = opt_string(s, ip, "type");
        if (const Member k = member(s, "skipInitContainer"))
          rs.skip_init_container = boolean(*k, child(ip, "skipInitContainer"));
        if (const Member c = member(s, "command")) rs.command = strings(*c, child(ip, "command"));
        if (const Member a = member(s, "args")) rs.args = strings(*a, child(ip, "args"));
        r.pause.resume_specs.push_back(std::move(rs));
      }
    }
  }
  return r;
}

m::RunPolicy run_policy(const Value& spec, const Path& path) {
  m::RunPolicy r;
  const Member x = member(spec, "runPolicy");
  if (!x) return r;
  const Path rp = child(path, "runPolicy");
  object(*x, rp);
  if (const Member a = member(*x, "activeDeadlineSeconds"))
    r.active_deadline_seconds = int64(*a, child(rp, "activeDeadlineSeconds"));
  if (const Member b = member(*x, "backoffLimit"))
    r.backoff_limit = int32(*b, child(rp, "backoffLimit"));
  if (const Member c = member(*x, "cleanUpPolicy"))
    r.clean_up_policy = enumeration<m::CleanUpPolicy>(*c, child(rp, "cleanUpPolicy"));
  return r;
}

std::optional<m::ElasticConfig> elastic(const Value& spec, const Path& path) {
  const Member x = member(spec, "elastic");
  if (!x) return std::nullopt;
  const Path ep = child(path, "elastic");
  object(*x, ep);
  m::ElasticConfig e;
  if (const Member v = member(*x, "enabled")) e.enabled = boolean(*v, child(ep, "enabled"));
  if (const Member v = member(*x, "minReplicas"))
    e.min_replicas = int32(*v, child(ep, "minReplicas"));
  if (const Member v = member(*x, "maxReplicas"))
    e.max_replicas = int32(*v, child(ep, "maxReplicas"));
  if (const Member v = member(*x, "expectedReplicas"))
    e.expected_replicas = int32(*v, child(ep, "expectedReplicas"));
  return e;
}

std::vector<m::FinishRule> finish_rules(const Value& j, const Path& path) {
  std::vector<m::FinishRule> out;
  std::size_t i = 0;
  for (const auto& r : array(j, path).items()) {
    const Path ip = item(path, i++);
    m::FinishRule rule;
    for (const auto& mbr : object(r, ip).members())
      rule.replicas[mbr.key] = ints(mbr.value, child(ip, mbr.key));
    out.push_back(std::move(rule));
  }
  return out;
}

m::GenericJobSpec generic_spec(const Value& s, const Path& sp) {
  m::GenericJobSpec spec;
  if (const Member x = member(s, "successRules"))
    spec.success_rules = finish_rules(*x, child(sp, "successRules"));
  if (const Member x = member(s, "failureRules"))
    spec.failure_rules = finish_rules(*x, child(sp, "failureRules"));
  if (const Member x = member(s, "service")) {
    const Path vp = child(sp, "service");
    m::ServiceOption svc;
    if (const Member ports = member(object(*x, vp), "ports")) {
      const Path pp = child(vp, "ports");
      std::size_t i = 0;
      for (const auto& p : array(*ports, pp).items()) {
        const Path ip = item(pp, i++);
        object(p, ip);
        svc.ports.push_back(
            {opt_string(p, ip, "name"), int32(need(p, ip, "port"), child(ip, "port"))});
      }
    }
    spec.service = std::move(svc);
  }
  spec.run_mode = m::Shared<m::RunMode>::or_default(run_mode(s, sp));
  if (const Member x = member(s, "cleanUpPolicy"))
    spec.clean_up_policy = enumeration<m::CleanUpPolicy>(*x, child(sp, "cleanUpPolicy"));
  spec.scheduler = scheduler(s, sp);
  const Path rp = child(sp, "replicaSpecs");
  std::size_t i = 0;
  for (const auto& r : array(need(s, sp, "replicaSpecs"), rp).items()) {
    const Path ip = item(rp, i++);
    object(r, ip);
    m::GenericReplicaSpec g;
    g.type = string(need(r, ip, "type"), child(ip, "type"));
    if (const Member x = member(r, "replicas")) g.replicas = int32(*x, child(ip, "replicas"));
    if (const Member x = member(r, "restartPolicy")) {
      const Path pp = child(ip, "restartPolicy");
      object(*x, pp);
      if (const Member p = member(*x, "policy"))
        g.restart_policy.policy = enumeration<m::RestartPolicyType>(*p, child(pp, "policy"));
      if (const Member l = member(*x, "limit"))
        g.restart_policy.limit = int32(*l, child(pp, "limit"));
    }
    g.template_ = pod_template(need(r, ip, "template"), child(ip, "template"));
    spec.replica_specs.push_back(std::move(g));
  }
  return spec;
}

m::PyTorchTrainingJobSpec pytorch_spec(const Value& s, const Path& sp) {
  m::PyTorchTrainingJobSpec spec;
  const Path rp = child(sp, "replicaSpecs");
  std::size_t i = 0;
  for (const auto& r : array(need(s, sp, "replicaSpecs"), rp).items()) {
    const Path ip = item(rp, i++);
    object(r, ip);
    m::PyTorchReplicaSpec p;
    p.type = string(need(r, ip, "type"), child(ip, "type"));
    if (const Member x = member(r, "replicas")) p.replicas = int32(*x, child(ip, "replicas"));
    if (const Member x = member(r, "scalingWeight"))
      p.scaling_weight = int32(*x, child(ip, "scalingWeight"));
    if (const Member x = member(r, "restartPolicy"))
      p.restart_policy = enumeration<m::RestartPolicyType>(*x, child(ip, "restartPolicy"));
    p.template_ = pod_template(need(r, ip, "template"), child(ip, "template"));
    spec.replica_specs.push_back(std::move(p));
  }
  spec.elastic = elastic(s, sp);
  if (const Member x = member(s, "torchrunConfig")) {
    const Path tp = child(sp, "torchrunConfig");
    object(*x, tp);
    m::TorchrunConfig t;
    if (const Member v = member(*x, "enabled")) t.enabled = boolean(*v, child(tp, "enabled"));
    if (const Member v = member(*x, "maxRestarts"))
      t.max_restarts = int32(*v, child(tp, "maxRestarts"));
    t.proc_per_node = opt_string(*x, tp, "procPerNode", t.proc_per_node);
    if (const Member v = member(*x, "rdzvBackend"))
      t.rdzv_backend = enumeration<m::RdzvBackend>(*v, child(tp, "rdzvBackend"));
    if (const Member v = member(*x, "extraOptions"))
      t.extra_options = strings(*v, child(tp, "extraOptions"));
    spec.torchrun_config = std::move(t);
  }
  spec.run_mode = m::Shared<m::RunMode>::or_default(run_mode(s, sp));
  spec.run_policy = run_policy(s, sp);
  if (const Member x = member(s, "tensorboardSpec")) {
    const Path tp = child(sp, "tensorboardSpec");
    object(*x, tp);
    m::TensorBoardSpec t;
    t.image = opt_string(*x, tp, "image");
    if (const Member v = member(*x, "trainingLogFilesets"))
      t.training_log_filesets = strings(*v, child(tp, "trainingLogFilesets"));
    spec.tensorboard_spec = std::move(t);
  }
  spec.scheduler = scheduler(s, sp);
  return spec;
}

m::DeepSpeedJobSpec deepspeed_spec(const Value& s, const Path& sp) {
  m::DeepSpeedJobSpec spec;
  spec.scheduler = scheduler(s, sp);
  spec.run_policy = run_policy(s, sp);
  spec.run_mode = m::Shared<m::RunMode>::or_default(run_mode(s, sp));
  spec.elastic = elastic(s, sp);
  if (const Member x = member(s, "config")) {
    const Path cp = child(sp, "config");
    object(*x, cp);
    m::DeepSpeedConfig& c = *spec.config;
    if (const Member v = member(*x, "customCommand"))
      c.custom_command = string(*v, child(cp, "customCommand"));
    if (const Member v = member(*x, "slotsPerWorker"))
      c.slots_per_worker = int32(*v, child(cp, "slotsPerWorker"));
    if (const Member v = member(*x, "localRank"))
      c.local_rank = boolean(*v, child(cp, "localRank"));
    if (const Member v = member(*x, "autotune"))
      c.autotune = enumeration<m::AutotuneType>(*v, child(cp, "autotune"));
    if (const Member r = member(*x, "run")) {
      const Path rp = child(cp, "run");
      object(*r, rp);
      if (const Member v = member(*r, "python")) c.run.python = strings(*v, child(rp, "python"));
      if (const Member v = member(*r, "module")) c.run.module = strings(*v, child(rp, "module"));
      if (const Member v = member(*r, "exec")) c.run.exec = strings(*v, child(rp, "exec"));
    }
    if (const Member v = member(*x, "otherArgs"))
      c.other_args = strings(*v, child(cp, "otherArgs"));
  }
  if (const Member x = member(s, "disableCustomEnv"))
    spec.disable_custom_env = boolean(*x, child(sp, "disableCustomEnv"));
  const Path wp = child(sp, "worker");
  const Value w = need(s, sp, "worker");
  object(w, wp);
  if (const Member x = member(w, "replicas"))
    spec.worker.replicas = int32(*x, child(wp, "replicas"));
  if (const Member x = member(w, "restartPolicy"))
    spec.worker.restart_policy = enumeration<m::RestartPolicyType>(*x, child(wp, "restartPolicy"));
  spec.worker.template_ = pod_template(need(w, wp, "template"), child(wp, "template"));
  return spec;
}

}  // namespace

m::Job decode_job(const Value& j, const Path& path) {
  object(j, path);
  const Value kind_v = need(j, path, "kind");
  const std::string kind = string(kind_v, child(path, "kind"));
  const m::ObjectMeta meta = metadata(need(j, path, "metadata"), child(path, "metadata"));
  const Path sp = child(path, "spec");
  const Value spec = need(j, path, "spec");
  object(spec, sp);
  m::JobStatus status;
  if (const Member st = member(j, "status")) status = decode_status(*st, child(path, "status"));
  if (kind == "GenericJob") return m::GenericJob{meta, generic_spec(spec, sp), std::move(status)};
  if (kind == "PyTorchTrainingJob")
    return m::PyTorchTrainingJob{meta, pytorch_spec(spec, sp), std::move(status)};
  if (kind == "DeepSpeedJob")
    return m::DeepSpeedJob{meta, deepspeed_spec(spec, sp), std::move(status)};
  bad(child(path, "kind"), "GenericJob, PyTorchTrainingJob or DeepSpeedJob", kind_v);
}

}  // namespace t9k::protocol::detail
