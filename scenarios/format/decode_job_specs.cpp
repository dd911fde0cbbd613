// The specs of GenericJob, PyTorchTrainingJob and DeepSpeedJob (shared/seeds), and what they share:
// scheduling, run mode, run policy, elastic scaling.
#include "scenarios/format/detail/object_decoder.hpp"

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

using namespace std::string_view_literals;

namespace {

constexpr std::string_view kGenericSpec[] = {"successRules", "failureRules",  "service",
                                             "runMode",      "cleanUpPolicy", "scheduler",
                                             "replicaSpecs"};
// The most replicas one replica spec (or elastic bound) may ask for: each is a pod the world
// creates, so a stray 1e9 would exhaust memory; ten times a 10,000-node cluster of 1-GPU pods.
constexpr std::int64_t kMaxReplicaCount = 100000;
constexpr std::string_view kGenericReplica[] = {"type", "replicas", "restartPolicy", "template"};
constexpr std::string_view kGenericRestart[] = {"policy", "limit"};
constexpr std::string_view kGenericRestartTypes[] = {"Always", "OnFailure", "Never"};
constexpr std::string_view kService[] = {"ports"};
constexpr std::string_view kServicePort[] = {"name", "port"};
constexpr std::string_view kPyTorchSpec[] = {"replicaSpecs", "elastic",   "torchrunConfig",
                                             "runMode",      "runPolicy", "tensorboardSpec",
                                             "scheduler"};
constexpr std::string_view kPyTorchReplica[] = {"type", "replicas", "scalingWeight", "template",
                                                "restartPolicy"};
constexpr std::string_view kDeepSpeedSpec[] = {
    "scheduler", "runPolicy", "runMode", "elastic", "config", "disableCustomEnv", "worker"};
constexpr std::string_view kDeepSpeedConfig[] = {
    "customCommand", "slotsPerWorker", "localRank", "autotune", "run", "otherArgs"};
constexpr std::string_view kRunType[] = {"python", "module", "exec"};
constexpr std::string_view kWorker[] = {"replicas", "template", "restartPolicy"};
constexpr std::string_view kRunMode[] = {"debug", "pause"};
constexpr std::string_view kDebug[] = {"enabled", "replicaSpecs"};
constexpr std::string_view kPause[] = {"enabled", "resumeSpecs"};
constexpr std::string_view kLegacyEnable[] = {"enable"};  // UD and the older reference (§7.1)
constexpr std::string_view kDebugSet[] = {"type", "skipInitContainer", "command"};
constexpr std::string_view kResumeSpec[] = {"type", "skipInitContainer", "command", "args"};
constexpr std::string_view kRunPolicy[] = {"activeDeadlineSeconds", "backoffLimit",
                                           "cleanUpPolicy"};
constexpr std::string_view kElastic[] = {"enabled", "minReplicas", "maxReplicas",
                                         "expectedReplicas"};
constexpr std::string_view kTorchrun[] = {"enabled", "maxRestarts", "procPerNode", "rdzvBackend",
                                          "extraOptions"};
constexpr std::string_view kTorchrunLegacy[] = {"enable", "minNodes"};  // UD (§4.2)
constexpr std::string_view kTensorBoard[] = {"image", "trainingLogFilesets"};
constexpr std::string_view kSchedulePolicy[] = {"t9kScheduler"};
constexpr std::string_view kT9kScheduler[] = {"queue", "priority"};

}  // namespace

m::SchedulePolicy Decoder::scheduler(const Val& v) {
  m::SchedulePolicy out;
  MapReader mr(r_, v, kSchedulePolicy);
  const Val t = mr.get("t9kScheduler");
  if (!t.present()) return out;
  MapReader tr(r_, t, kT9kScheduler);
  if (!tr.ok()) return out;
  m::T9kScheduler s;
  if (auto q = read_string(r_, tr.get("queue"))) s.queue = *q;
  if (auto p = read_int32(r_, tr.get("priority"))) s.priority = *p;
  out.t9k_scheduler = s;
  return out;
}

// `enabled`, or the older spelling `enable` (UD; §7.1 "field-name drift"): accepted with a
// warning and mapped, so manifests written against the older docs behave as their authors meant.
bool Decoder::enabled_flag(const MapReader& mr, bool fallback) {
  const Val legacy = mr.get("enable");
  const auto modern = read_bool(r_, mr.get("enabled"));
  if (legacy.present()) {
    const auto old = read_bool(r_, legacy);
    if (old) {
      if (modern && *modern != *old) {
        r_.error(legacy.mark, legacy.path,
                 fmt::format("found enable: {} next to enabled: {}; allowed: one of them "
                             "(\"enable\" is the older spelling of \"enabled\")",
                             *old, *modern));
      } else {
        r_.warning(
            legacy.mark, legacy.path,
            "\"enable\" is the older spelling of \"enabled\" (spec §7.1); read as \"enabled\"");
        if (!modern) return *old;
      }
    }
  }
  return modern.value_or(fallback);
}

m::RunMode Decoder::run_mode(const Val& v) {
  m::RunMode out;
  MapReader mr(r_, v, kRunMode);
  {
    MapReader d(r_, mr.get("debug"), kDebug, kLegacyEnable);
    out.debug.enabled = enabled_flag(d, false);
    for (const Val& item : read_list(r_, d.get("replicaSpecs"))) {
      MapReader s(r_, item, kDebugSet);
      m::ReplicaDebugSet set;
      if (auto x = read_string(r_, s.get("type"))) set.type = *x;
      if (auto x = read_bool(r_, s.get("skipInitContainer"))) set.skip_init_container = *x;
      if (auto x = read_string_list(r_, s.get("command"))) set.command = *x;
      out.debug.replica_specs.push_back(std::move(set));
    }
  }
  {
    MapReader p(r_, mr.get("pause"), kPause, kLegacyEnable);
    out.pause.enabled = enabled_flag(p, false);
    for (const Val& item : read_list(r_, p.get("resumeSpecs"))) {
      MapReader s(r_, item, kResumeSpec);
      m::ResumeSpec rs;
      if (auto x = read_string(r_, s.get("type"))) rs.type = *x;
      if (auto x = read_bool(r_, s.get("skipInitContainer"))) rs.skip_init_container = *x;
      if (auto x = read_string_list(r_, s.get("command"))) rs.command = *x;
      if (auto x = read_string_list(r_, s.get("args"))) rs.args = *x;
      out.pause.resume_specs.push_back(std::move(rs));
    }
  }
  return out;
}

m::RunPolicy Decoder::run_policy(const Val& v) {
  m::RunPolicy out;
  MapReader mr(r_, v, kRunPolicy);
  // "value must be positive integer" (API RunPolicy, §6.1).
  if (auto x = read_int(r_, mr.get("activeDeadlineSeconds"), 1, INT64_MAX))
    out.active_deadline_seconds = *x;
  // backoffLimit >= 0 (mpi-operator validation, faults-and-validation §3.3).
  if (auto x = read_int32(r_, mr.get("backoffLimit"), 0)) out.backoff_limit = *x;
  if (auto x = read_enum<m::CleanUpPolicy>(r_, mr.get("cleanUpPolicy"))) out.clean_up_policy = *x;
  return out;
}

std::optional<m::ElasticConfig> Decoder::elastic(const Val& v) {
  if (!v.present()) return std::nullopt;
  MapReader mr(r_, v, kElastic, kLegacyEnable);
  if (!mr.ok()) return std::nullopt;
  m::ElasticConfig e;
  e.enabled = enabled_flag(mr, false);
  if (auto x = read_int32(r_, mr.get("minReplicas"), 0, kMaxReplicaCount)) e.min_replicas = *x;
  if (auto x = read_int32(r_, mr.get("maxReplicas"), 0, kMaxReplicaCount)) e.max_replicas = *x;
  if (auto x = read_int32(r_, mr.get("expectedReplicas"), 0, kMaxReplicaCount))
    e.expected_replicas = *x;
  return e;
}

m::FinishRule Decoder::finish_rule(const Val& v) {
  m::FinishRule rule;
  r_.tick();
  r_.record(v.path, v.mark);
  if (!v.present() || !v.node.IsMap()) {
    r_.error(v.mark, v.path,
             fmt::format("found {}; allowed: a mapping from replica type to ranks, e.g. "
                         "{{\"worker\": [0, 1]}}",
                         describe(v.node)));
    return rule;
  }
  for (auto it = v.node.begin(); it != v.node.end(); ++it) {
    r_.tick();
    if (!it->first.IsScalar()) {
      r_.error(it->first.Mark(), v.path, "found a non-scalar key; allowed: a replica type");
      continue;
    }
    const std::string type = it->first.Scalar();
    const Val ranks{it->second, it->first.Mark(), child_path(v.path, type)};
    if (rule.replicas.count(type)) {
      r_.error(ranks.mark, ranks.path, fmt::format("duplicate replica type \"{}\"", type));
      continue;
    }
    auto& out = rule.replicas[type];
    if (!ranks.present() || !ranks.node.IsSequence()) {
      r_.error(ranks.mark, ranks.path,
               fmt::format("found {}; allowed: a sequence of ranks (integers >= 0)",
                           describe(ranks.node)));
      continue;
    }
    for (const Val& rank : read_list(r_, ranks)) {
      if (auto x = read_int32(r_, rank, 0)) {
        out.push_back(*x);
      } else {
        r_.block(ranks.path);  // the rank's own error explains the list
      }
    }
  }
  return rule;
}

m::GenericJobSpec Decoder::generic_spec(const Val& v) {
  m::GenericJobSpec s;
  MapReader mr(r_, v, kGenericSpec);
  for (const Val& item : read_list(r_, mr.get("successRules")))
    s.success_rules.push_back(finish_rule(item));
  for (const Val& item : read_list(r_, mr.get("failureRules")))
    s.failure_rules.push_back(finish_rule(item));
  if (mr.has("service")) {
    MapReader sv(r_, mr.get("service"), kService);
    m::ServiceOption opt;
    for (const Val& item : read_list(r_, sv.get("ports"))) {
      MapReader pr(r_, item, kServicePort);
      m::ServicePort port;
      if (require(r_, pr.get("name"))) {
        if (auto x = read_string(r_, pr.get("name"))) port.name = *x;
      }
      if (require(r_, pr.get("port"))) {
        if (auto x = read_int32(r_, pr.get("port"), 1, 65535)) port.port = *x;
      }
      opt.ports.push_back(std::move(port));
    }
    s.service = std::move(opt);
  }
  s.run_mode = m::Shared<m::RunMode>::or_default(run_mode(mr.get("runMode")));
  if (auto x = read_enum<m::CleanUpPolicy>(r_, mr.get("cleanUpPolicy"))) s.clean_up_policy = *x;
  s.scheduler = scheduler(mr.get("scheduler"));
  if (require(r_, mr.get("replicaSpecs"))) {
    for (const Val& item : read_list(r_, mr.get("replicaSpecs"))) {
      MapReader rr(r_, item, kGenericReplica);
      m::GenericReplicaSpec rs;
      if (require(r_, rr.get("type"))) {
        if (auto x = read_string(r_, rr.get("type"))) rs.type = *x;
      }
      if (auto x = read_int32(r_, rr.get("replicas"), 0, kMaxReplicaCount)) rs.replicas = *x;
      const Val rp = rr.get("restartPolicy");
      if (rp.present() && rp.node.IsScalar()) {
        r_.error(rp.mark, rp.path,
                 fmt::format("found {}; allowed: a mapping {{policy: Always|OnFailure|Never, "
                             "limit: <int>}} (GenericJob's restartPolicy is an object, spec §2.1)",
                             describe(rp.node)));
      } else {
        MapReader p(r_, rp, kGenericRestart);
        if (auto x = read_choice(r_, p.get("policy"), kGenericRestartTypes)) {
          rs.restart_policy.policy = *m::parse_enum<m::RestartPolicyType>(*x);
        }
        if (auto x = read_int32(r_, p.get("limit"), 0)) rs.restart_policy.limit = *x;
      }
      if (require(r_, rr.get("template"))) rs.template_ = pod_template(rr.get("template"));
      s.replica_specs.push_back(std::move(rs));
    }
  }
  return s;
}

m::PyTorchTrainingJobSpec Decoder::pytorch_spec(const Val& v) {
  m::PyTorchTrainingJobSpec s;
  MapReader mr(r_, v, kPyTorchSpec);
  if (require(r_, mr.get("replicaSpecs"))) {
    for (const Val& item : read_list(r_, mr.get("replicaSpecs"))) {
      MapReader rr(r_, item, kPyTorchReplica);
      m::PyTorchReplicaSpec rs;
      if (require(r_, rr.get("type"))) {
        if (auto x = read_string(r_, rr.get("type"))) rs.type = *x;
      }
      if (auto x = read_int32(r_, rr.get("replicas"), 0, kMaxReplicaCount)) rs.replicas = *x;
      if (auto x = read_int32(r_, rr.get("scalingWeight"), 0)) rs.scaling_weight = *x;
      if (auto x = read_enum<m::RestartPolicyType>(r_, rr.get("restartPolicy")))
        rs.restart_policy = *x;
      if (require(r_, rr.get("template"))) rs.template_ = pod_template(rr.get("template"));
      s.replica_specs.push_back(std::move(rs));
    }
  }
  s.elastic = elastic(mr.get("elastic"));
  const Val tr = mr.get("torchrunConfig");
  if (tr.present()) {
    MapReader t(r_, tr, kTorchrun, kTorchrunLegacy);
    if (t.ok()) {
      m::TorchrunConfig c;
      c.enabled = enabled_flag(t, false);
      if (auto x = read_int32(r_, t.get("maxRestarts"), 0)) c.max_restarts = *x;
      if (auto x = read_string(r_, t.get("procPerNode"))) c.proc_per_node = *x;
      if (auto x = read_enum<m::RdzvBackend>(r_, t.get("rdzvBackend"))) c.rdzv_backend = *x;
      if (auto x = read_string_list(r_, t.get("extraOptions"))) c.extra_options = *x;
      const Val min_nodes = t.get("minNodes");
      if (min_nodes.present() && read_int32(r_, min_nodes, 0)) {
        // UD's torchrunConfig.minNodes ("minimum replicas for elastic training", §4.2) is
        // superseded by spec.elastic.minReplicas; the simulator takes the minimum from there.
        r_.warning(min_nodes.mark, min_nodes.path,
                   "\"minNodes\" is an older field (spec §4.2) and is ignored; set "
                   "spec.elastic.minReplicas instead");
      }
      s.torchrun_config = std::move(c);
    }
  }
  s.run_mode = m::Shared<m::RunMode>::or_default(run_mode(mr.get("runMode")));
  s.run_policy = run_policy(mr.get("runPolicy"));
  const Val tb = mr.get("tensorboardSpec");
  if (tb.present()) {
    MapReader t(r_, tb, kTensorBoard);
    m::TensorBoardSpec spec;
    if (auto x = read_string(r_, t.get("image"))) spec.image = *x;
    if (auto x = read_string_list(r_, t.get("trainingLogFilesets")))
      spec.training_log_filesets = *x;
    s.tensorboard_spec = std::move(spec);
  }
  s.scheduler = scheduler(mr.get("scheduler"));
  return s;
}

m::DeepSpeedJobSpec Decoder::deepspeed_spec(const Val& v) {
  m::DeepSpeedJobSpec s;
  MapReader mr(r_, v, kDeepSpeedSpec);
  s.scheduler = scheduler(mr.get("scheduler"));
  s.run_policy = run_policy(mr.get("runPolicy"));
  s.run_mode = m::Shared<m::RunMode>::or_default(run_mode(mr.get("runMode")));
  s.elastic = elastic(mr.get("elastic"));
  {
    MapReader c(r_, mr.get("config"), kDeepSpeedConfig);
    m::DeepSpeedConfig& cfg = *s.config;
    if (auto x = read_string(r_, c.get("customCommand"))) cfg.custom_command = *x;
    if (auto x = read_int32(r_, c.get("slotsPerWorker"), 1)) cfg.slots_per_worker = *x;
    if (auto x = read_bool(r_, c.get("localRank"))) cfg.local_rank = *x;
    if (auto x = read_enum<m::AutotuneType>(r_, c.get("autotune"))) cfg.autotune = *x;
    MapReader run(r_, c.get("run"), kRunType);
    // Present-but-empty lists still count as "set" for the exactly-one rule.
    auto list = [&](std::string_view key, std::optional<std::vector<std::string>>& out) {
      const Val val = run.get(key);
      if (!val.present()) return;
      if (auto x = read_string_list(r_, val)) out = *x;
    };
    list("python", cfg.run.python);
    list("module", cfg.run.module);
    list("exec", cfg.run.exec);
    if (auto x = read_string_list(r_, c.get("otherArgs"))) cfg.other_args = *x;
  }
  if (auto x = read_bool(r_, mr.get("disableCustomEnv"))) s.disable_custom_env = *x;
  if (require(r_, mr.get("worker"))) {
    MapReader w(r_, mr.get("worker"), kWorker);
    if (auto x = read_int32(r_, w.get("replicas"), 0, kMaxReplicaCount)) s.worker.replicas = *x;
    if (auto x = read_enum<m::RestartPolicyType>(r_, w.get("restartPolicy")))
      s.worker.restart_policy = *x;
    if (require(r_, w.get("template"))) s.worker.template_ = pod_template(w.get("template"));
  }
  return s;
}

}  // namespace t9k::scenarios::detail
