// Pod templates as the API server reads them: Kubernetes v1.24 field names, the ones the model
// keeps and the ones it drops with a warning.
#include "scenarios/format/detail/object_decoder.hpp"

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

using namespace std::string_view_literals;

namespace {

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
constexpr std::string_view kTemplateKept[] = {"metadata", "spec"};
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

}  // namespace

const std::vector<std::string_view> kPodSpecFields = concat(kPodSpecKept, kPodSpecDropped);
const std::vector<std::string_view> kContainerFields = concat(kContainerKept, kContainerDropped);

m::ResourceList Decoder::resources(const Val& v) {
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

m::Container Decoder::container(const Val& v) {
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

m::PodTemplateSpec Decoder::pod_template(const Val& v) {
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

}  // namespace t9k::scenarios::detail
