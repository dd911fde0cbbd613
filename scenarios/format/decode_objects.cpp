// YAML (or JSON) documents to typed model objects. Structure and scalar checks happen here, as
// each value is read; rules that relate several fields are in validate.cpp, run on the typed
// result. T9k fields are strict: an unknown field is an error, since a mistyped field the
// simulator interprets would silently change results. Kubernetes-owned parts (metadata, the pod
// template) follow the API server, which drops unknown fields with a warning.
#include <algorithm>

#include <fmt/format.h>

#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

using namespace std::string_view_literals;
namespace m = t9k::model;

// ---- Kubernetes v1.24 field names ----
namespace {
// Kept by the model.
constexpr std::string_view kMetaKept[] = {
    "name", "namespace", "labels", "annotations", "uid", "creationTimestamp", "ownerReferences"};
constexpr std::string_view kMetaDropped[] = {
    "generateName", "selfLink",          "resourceVersion",
    "generation",   "deletionTimestamp", "deletionGracePeriodSeconds",
    "finalizers",   "managedFields",     "clusterName"};
constexpr std::string_view kOwnerKept[] = {"apiVersion", "kind", "name", "uid", "controller"};
constexpr std::string_view kOwnerDropped[] = {"blockOwnerDeletion"};
constexpr std::string_view kTemplateKept[] = {"metadata", "spec"};
constexpr std::string_view kPodSpecKept[] = {
    "initContainers",        "containers", "nodeSelector",  "schedulerName",
    "priorityClassName",     "priority",   "restartPolicy", "terminationGracePeriodSeconds",
    "activeDeadlineSeconds", "tolerations"};
constexpr std::string_view kPodSpecDropped[] = {"affinity",
                                                "automountServiceAccountToken",
                                                "dnsConfig",
                                                "dnsPolicy",
                                                "enableServiceLinks",
                                                "ephemeralContainers",
                                                "hostAliases",
                                                "hostIPC",
                                                "hostNetwork",
                                                "hostPID",
                                                "hostname",
                                                "imagePullSecrets",
                                                "nodeName",
                                                "os",
                                                "overhead",
                                                "preemptionPolicy",
                                                "readinessGates",
                                                "runtimeClassName",
                                                "securityContext",
                                                "serviceAccount",
                                                "serviceAccountName",
                                                "setHostnameAsFQDN",
                                                "shareProcessNamespace",
                                                "subdomain",
                                                "topologySpreadConstraints",
                                                "volumes"};
constexpr std::string_view kContainerKept[] = {"name", "image", "command", "args", "resources"};
constexpr std::string_view kContainerDropped[] = {"env",
                                                  "envFrom",
                                                  "imagePullPolicy",
                                                  "lifecycle",
                                                  "livenessProbe",
                                                  "ports",
                                                  "readinessProbe",
                                                  "securityContext",
                                                  "startupProbe",
                                                  "stdin",
                                                  "stdinOnce",
                                                  "terminationMessagePath",
                                                  "terminationMessagePolicy",
                                                  "tty",
                                                  "volumeDevices",
                                                  "volumeMounts",
                                                  "workingDir"};
constexpr std::string_view kResourcesKept[] = {"limits", "requests"};
constexpr std::string_view kTolerationKept[] = {"key", "operator", "value", "effect"};
constexpr std::string_view kTolerationDropped[] = {"tolerationSeconds"};
constexpr std::string_view kTolerationOps[] = {"Exists", "Equal"};
constexpr std::string_view kTaintEffects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
constexpr std::string_view kPodRestart[] = {"Always", "OnFailure", "Never"};

std::vector<std::string_view> concat(std::span<const std::string_view> a,
                                     std::span<const std::string_view> b) {
  std::vector<std::string_view> r(a.begin(), a.end());
  r.insert(r.end(), b.begin(), b.end());
  return r;
}
}  // namespace

const std::vector<std::string_view> kPodSpecFields = concat(kPodSpecKept, kPodSpecDropped);
const std::vector<std::string_view> kContainerFields = concat(kContainerKept, kContainerDropped);
const std::vector<std::string_view> kObjectMetaFields = concat(kMetaKept, kMetaDropped);

namespace {

// ---- T9k field names (shared/seeds) ----
constexpr std::string_view kTopFields[] = {"apiVersion", "kind", "metadata", "spec", "status"};
constexpr std::string_view kKinds[] = {"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob", "Queue",
                                       "PodGroup"};
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
// startTime, completionTime, activeSince and elasticReplicas are the controllers' bookkeeping
// (model::JobStatus): written back so a status round-trips exactly (plugins, docs/plugins.md).
constexpr std::string_view kJobStatus[] = {"phase",     "conditions",     "aggregate",  "tasks",
                                           "startTime", "completionTime", "activeSince"};
constexpr std::string_view kJobStatusRunPolicy[] = {
    "phase",     "conditions",     "aggregate",   "tasks",          "backoffCount",
    "startTime", "completionTime", "activeSince", "elasticReplicas"};
constexpr std::string_view kPyTorchStatus[] = {
    "phase",       "conditions", "aggregate",      "tasks",       "backoffCount",
    "tensorboard", "startTime",  "completionTime", "activeSince", "elasticReplicas"};
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

constexpr Severity kK8s = Severity::Warning;

class Decoder {
 public:
  explicit Decoder(Report& r) : r_(r) {}

  // ---- Kubernetes parts ----

  m::Labels labels(const Val& v) {
    m::Labels out;
    for (const auto& [k, val] : FreeMap(r_, v).entries()) {
      out[k] = val.present() ? val.node.Scalar() : std::string();
    }
    return out;
  }

  void timestamp(const Val& v, std::optional<m::SimTime>& out) {
    const auto s = read_string(r_, v);
    if (!s) return;
    m::SimTime t{};
    if (!parse_timestamp(*s, t)) {
      r_.error(v.mark, v.path,
               fmt::format("found \"{}\"; allowed: an RFC 3339 time at or after "
                           "1970-01-01T00:00:00Z (simulation time zero)",
                           *s));
      return;
    }
    out = t;
  }

  m::ObjectMeta metadata(const Val& v) {
    m::ObjectMeta meta;
    MapReader mr(r_, v, kMetaKept, kMetaDropped, kK8s);
    if (auto s = read_string(r_, mr.get("name"))) meta.name = *s;
    if (auto s = read_string(r_, mr.get("namespace"))) meta.namespace_ = *s;
    meta.labels = labels(mr.get("labels"));
    meta.annotations = labels(mr.get("annotations"));
    if (auto s = read_string(r_, mr.get("uid"))) meta.uid = *s;
    timestamp(mr.get("creationTimestamp"), meta.creation_timestamp);
    for (const Val& item : read_list(r_, mr.get("ownerReferences"))) {
      MapReader o(r_, item, kOwnerKept, kOwnerDropped, kK8s);
      m::OwnerReference ref;
      if (auto s = read_string(r_, o.get("apiVersion"))) ref.api_version = *s;
      if (auto s = read_string(r_, o.get("kind"))) ref.kind = *s;
      if (auto s = read_string(r_, o.get("name"))) ref.name = *s;
      if (auto s = read_string(r_, o.get("uid"))) ref.uid = *s;
      if (auto b = read_bool(r_, o.get("controller"))) ref.controller = *b;
      meta.owner_references.push_back(std::move(ref));
    }
    return meta;
  }

  m::ResourceList resources(const Val& v) {
    m::ResourceList out;
    for (const auto& [k, val] : FreeMap(r_, v).entries()) {
      if (!val.present()) {
        r_.error(val.mark, val.path, "found null; allowed: a quantity such as 500m, 2, 4Gi");
        continue;
      }
      if (auto q = read_quantity(r_, val)) out[k] = *q;
    }
    return out;
  }

  m::Container container(const Val& v) {
    m::Container c;
    MapReader mr(r_, v, kContainerKept, kContainerDropped, kK8s);
    if (auto s = read_string(r_, mr.get("name"))) c.name = *s;
    if (auto s = read_string(r_, mr.get("image"))) c.image = *s;
    if (auto l = read_string_list(r_, mr.get("command"))) c.command = *l;
    if (auto l = read_string_list(r_, mr.get("args"))) c.args = *l;
    MapReader res(r_, mr.get("resources"), kResourcesKept, {}, kK8s);
    c.resources.limits = resources(res.get("limits"));
    c.resources.requests = resources(res.get("requests"));
    return c;
  }

  m::PodTemplateSpec pod_template(const Val& v) {
    m::PodTemplateSpec t;
    MapReader mr(r_, v, kTemplateKept, {}, kK8s);
    t.metadata = metadata(mr.get("metadata"));
    MapReader spec(r_, mr.get("spec"), kPodSpecKept, kPodSpecDropped, kK8s);
    m::PodSpec& p = t.spec;
    for (const Val& item : read_list(r_, spec.get("initContainers")))
      p.init_containers.push_back(container(item));
    for (const Val& item : read_list(r_, spec.get("containers")))
      p.containers.push_back(container(item));
    p.node_selector = labels(spec.get("nodeSelector"));
    if (auto s = read_string(r_, spec.get("schedulerName"))) p.scheduler_name = *s;
    if (auto s = read_string(r_, spec.get("priorityClassName"))) p.priority_class_name = *s;
    if (auto i = read_int32(r_, spec.get("priority"))) p.priority = *i;
    if (auto s = read_choice(r_, spec.get("restartPolicy"), kPodRestart)) p.restart_policy = *s;
    if (auto i = read_int(r_, spec.get("terminationGracePeriodSeconds"), 0, INT64_MAX)) {
      p.termination_grace_period_seconds = *i;
    }
    if (auto i = read_int(r_, spec.get("activeDeadlineSeconds"), 1, INT64_MAX))
      p.active_deadline_seconds = *i;
    for (const Val& item : read_list(r_, spec.get("tolerations"))) {
      MapReader tr(r_, item, kTolerationKept, kTolerationDropped, kK8s);
      m::Toleration tol;
      if (auto s = read_string(r_, tr.get("key"))) tol.key = *s;
      if (tr.has("operator")) {
        if (auto s = read_choice(r_, tr.get("operator"), kTolerationOps)) tol.op = *s;
      }
      if (auto s = read_string(r_, tr.get("value"))) tol.value = *s;
      if (tr.has("effect")) {
        if (auto s = read_choice(r_, tr.get("effect"), kTaintEffects)) tol.effect = *s;
      }
      p.tolerations.push_back(std::move(tol));
    }
    return t;
  }

  // ---- shared T9k parts ----

  m::SchedulePolicy scheduler(const Val& v) {
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
  bool enabled_flag(const MapReader& mr, bool fallback) {
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

  m::RunMode run_mode(const Val& v) {
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

  m::RunPolicy run_policy(const Val& v) {
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

  std::optional<m::ElasticConfig> elastic(const Val& v) {
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

  // ---- job status ----

  m::JobStatus job_status(const Val& v, std::span<const std::string_view> fields) {
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
      std::optional<m::SimTime> t;
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

  // ---- the three job kinds ----

  m::FinishRule finish_rule(const Val& v) {
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

  m::GenericJobSpec generic_spec(const Val& v) {
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
    s.run_mode = run_mode(mr.get("runMode"));
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
          r_.error(
              rp.mark, rp.path,
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

  m::PyTorchTrainingJobSpec pytorch_spec(const Val& v) {
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
    s.run_mode = run_mode(mr.get("runMode"));
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

  m::DeepSpeedJobSpec deepspeed_spec(const Val& v) {
    m::DeepSpeedJobSpec s;
    MapReader mr(r_, v, kDeepSpeedSpec);
    s.scheduler = scheduler(mr.get("scheduler"));
    s.run_policy = run_policy(mr.get("runPolicy"));
    s.run_mode = run_mode(mr.get("runMode"));
    s.elastic = elastic(mr.get("elastic"));
    {
      MapReader c(r_, mr.get("config"), kDeepSpeedConfig);
      m::DeepSpeedConfig& cfg = s.config;
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

  // ---- scheduler objects ----

  m::LabelSelector selector(const Val& v) {
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

  m::QueueSpec queue_spec(const Val& v) {
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

  m::QueueStatus queue_status(const Val& v) {
    m::QueueStatus st;
    MapReader mr(r_, v, kQueueStatus, kQueueStatusDropped);
    st.allocated = resources(mr.get("allocated"));
    MapReader pg(r_, mr.get("podGroups"), kPodGroupCount);
    if (auto x = read_int32(r_, pg.get("total"), 0)) st.pod_groups = *x;
    MapReader pods(r_, mr.get("pods"), kPodCounts);
    std::int32_t* slots[] = {&st.pods_pending, &st.pods_running, &st.pods_succeeded,
                             &st.pods_failed, &st.pods_unknown};
    for (std::size_t i = 0; i < std::size(kPodCounts); ++i) {
      if (auto x = read_int32(r_, pods.get(kPodCounts[i]), 0)) *slots[i] = *x;
    }
    return st;
  }

  m::PodGroupSpec pod_group_spec(const Val& v) {
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

  m::PodGroupStatus pod_group_status(const Val& v) {
    m::PodGroupStatus st;
    MapReader mr(r_, v, kPodGroupStatus);
    for (const Val& item : read_list(r_, mr.get("conditions"))) {
      MapReader c(r_, item, kPodGroupCondition, kPodGroupConditionDropped);
      std::optional<std::string> type, status;
      if (require(r_, c.get("type")))
        type = read_choice(r_, c.get("type"), kPodGroupConditionTypes);
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

  std::optional<Object> object(const Val& v) {
    MapReader mr(r_, v, kTopFields);
    if (!mr.ok()) return std::nullopt;
    if (!v.present()) {
      r_.error(v.mark, v.path,
               "found an empty document; allowed: a T9k object (apiVersion, kind, metadata, spec)");
      return std::nullopt;
    }
    const Val kind_v = mr.get("kind");
    if (!require(r_, kind_v)) return std::nullopt;
    const auto kind = read_choice(r_, kind_v, kKinds);
    if (!kind) return std::nullopt;
    const bool batch = *kind != "Queue" && *kind != "PodGroup";
    const std::string_view group = batch ? m::kBatchApiVersion : m::kSchedulerApiVersion;
    const Val api = mr.get("apiVersion");
    if (require(r_, api)) {
      const std::string_view allowed[] = {group};
      read_choice(r_, api, allowed);
    }
    const Val meta_v = mr.get("metadata");
    require(r_, meta_v);
    m::ObjectMeta meta = metadata(meta_v);
    const Val spec = mr.get("spec");
    const Val status = mr.get("status");
    require(r_, spec);
    if (*kind == "GenericJob") {
      m::GenericJob j{std::move(meta), generic_spec(spec), job_status(status, kJobStatus)};
      return Object{std::move(j)};
    }
    if (*kind == "PyTorchTrainingJob") {
      m::PyTorchTrainingJob j{std::move(meta), pytorch_spec(spec),
                              job_status(status, kPyTorchStatus)};
      return Object{std::move(j)};
    }
    if (*kind == "DeepSpeedJob") {
      m::DeepSpeedJob j{std::move(meta), deepspeed_spec(spec),
                        job_status(status, kJobStatusRunPolicy)};
      return Object{std::move(j)};
    }
    if (*kind == "Queue") {
      m::Queue q{std::move(meta), queue_spec(spec), queue_status(status)};
      return Object{std::move(q)};
    }
    m::PodGroup pg{std::move(meta), pod_group_spec(spec), pod_group_status(status)};
    return Object{std::move(pg)};
  }

 private:
  Report& r_;
};

}  // namespace

std::optional<Object> decode_object(Report& r, const Val& v) {
  const std::size_t errors_before = r.error_count();
  auto obj = Decoder(r).object(v);
  if (!obj) return std::nullopt;
  check_object(r, *obj, v.path);
  if (r.error_count() != errors_before) return std::nullopt;
  return obj;
}

}  // namespace t9k::scenarios::detail
