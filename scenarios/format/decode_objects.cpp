// YAML (or JSON) documents to typed model objects: the object, its kind and metadata
// (detail/object_decoder.hpp has the parts and where each is decoded).
#include "scenarios/format/detail/object_decoder.hpp"

#include <charconv>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

using Json = nlohmann::ordered_json;

// A plain YAML scalar as the core schema reads it (null, booleans, decimal numbers); anything
// else, and every quoted scalar, is a string. What a Kubernetes API server would store for it.
Json scalar(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::int64_t i = 0;
  const char* end = s.data() + s.size();
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  if (auto [p, ec] = std::from_chars(b, end, i); ec == std::errc() && p == end) return i;
  const bool numeric = s.find_first_not_of("+-.0123456789eE") == std::string::npos &&
                       s.find_first_of("0123456789") != std::string::npos;
  if (numeric) {
    char* stop = nullptr;
    const double d = std::strtod(s.c_str(), &stop);
    if (stop == s.c_str() + s.size()) return d;
  }
  return s;
}

Json to_json(Report& r, const YAML::Node& n) {
  r.tick();
  if (n.IsMap()) {
    Json j = Json::object();
    for (const auto& kv : n) j[kv.first.Scalar()] = to_json(r, kv.second);
    return j;
  }
  if (n.IsSequence()) {
    Json j = Json::array();
    for (const auto& item : n) j.push_back(to_json(r, item));
    return j;
  }
  if (n.IsScalar()) return scalar(n);
  return nullptr;
}

bool is_t9k_group(std::string_view api_version) {
  return api_version.ends_with(".tensorstack.dev/v1beta1") ||
         api_version.starts_with("batch.tensorstack.dev/") ||
         api_version.starts_with("scheduler.tensorstack.dev/");
}

}  // namespace

const std::vector<std::string_view> kObjectMetaFields = concat(kMetaKept, kMetaDropped);

m::Labels Decoder::labels(const Val& v) {
  m::Labels out;
  for (const auto& [k, val] : FreeMap(r_, v).entries()) {
    out[k] = val.present() ? val.node.Scalar() : std::string();
  }
  return out;
}

void Decoder::timestamp(const Val& v, m::OptionalTime& out) {
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
  meta.annotations = model::Shared<model::Labels>::or_default(labels(mr.get("annotations")));
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
  if (auto plugin = plugin_job(mr)) return plugin;
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

// An object of a kind outside T9k's groups (apiVersion "group/version"): a job for a controller
// plugin that serves the kind (docs/plugins-go.md "Kinds of your own"). Its metadata is read as
// any object's; its spec and status are kept as JSON, unchecked: only the plugin knows them.
std::optional<Object> Decoder::plugin_job(MapReader& mr) {
  const Val api = mr.get("apiVersion");
  const Val kind_v = mr.get("kind");
  if (!api.present() || !api.node.IsScalar() || !kind_v.node.IsScalar()) return std::nullopt;
  const std::string& api_version = api.node.Scalar();
  const std::string& kind = kind_v.node.Scalar();
  const auto slash = api_version.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == api_version.size() ||
      is_t9k_group(api_version) || kind.empty()) {
    return std::nullopt;
  }
  m::PluginJob job;
  job.api_version = api_version;
  job.kind = kind;
  const Val meta_v = mr.get("metadata");
  require(r_, meta_v);
  job.metadata = metadata(meta_v);
  const Val spec = mr.get("spec");
  if (!require(r_, spec)) return std::nullopt;
  if (!spec.node.IsMap()) {
    r_.error(
        spec.mark, spec.path,
        fmt::format("found {}; allowed: a mapping (the {}'s spec)", describe(spec.node), kind));
    return std::nullopt;
  }
  job.spec.json = to_json(r_, spec.node).dump();
  const Val status = mr.get("status");
  if (status.present()) {
    if (!status.node.IsMap()) {
      r_.error(status.mark, status.path,
               fmt::format("found {}; allowed: a mapping", describe(status.node)));
      return std::nullopt;
    }
    job.status.plugin_status = to_json(r_, status.node).dump();
  }
  return Object{std::move(job)};
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
