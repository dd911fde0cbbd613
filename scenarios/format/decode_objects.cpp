// YAML (or JSON) documents to typed model objects: the object, its kind and metadata
// (detail/object_decoder.hpp has the parts and where each is decoded).
#include "scenarios/format/detail/object_decoder.hpp"

#include <vector>

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

using namespace std::string_view_literals;

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
constexpr std::string_view kTopFields[] = {"apiVersion", "kind", "metadata", "spec", "status"};
constexpr std::string_view kKinds[] = {"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob", "Queue",
                                       "PodGroup"};
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

}  // namespace

const std::vector<std::string_view> kObjectMetaFields = concat(kMetaKept, kMetaDropped);

m::Labels Decoder::labels(const Val& v) {
  m::Labels out;
  for (const auto& [k, val] : FreeMap(r_, v).entries()) {
    out[k] = val.present() ? val.node.Scalar() : std::string();
  }
  return out;
}

void Decoder::timestamp(const Val& v, std::optional<m::SimTime>& out) {
  const auto s = read_string(r_, v);
  if (!s || is_unset_time(*s)) return;  // Go's zero time: never set
  m::SimTime t{};
  if (!parse_timestamp(*s, t)) {
    r_.error(v.mark, v.path,
             fmt::format("found \"{}\"; allowed: an RFC 3339 time at or after "
                         "1970-01-01T00:00:00Z (simulation time zero), or "
                         "0001-01-01T00:00:00Z for unset",
                         *s));
    return;
  }
  out = t;
}

m::ObjectMeta Decoder::metadata(const Val& v) {
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

std::optional<Object> Decoder::object(const Val& v) {
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

std::optional<Object> decode_object(Report& r, const Val& v) {
  const std::size_t errors_before = r.error_count();
  auto obj = Decoder(r).object(v);
  if (!obj) return std::nullopt;
  check_object(r, *obj, v.path);
  if (r.error_count() != errors_before) return std::nullopt;
  return obj;
}

}  // namespace t9k::scenarios::detail
