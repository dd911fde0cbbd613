// Internal: YAML (or JSON) documents to typed model objects (decode_object, detail/decode.hpp).
// Structure and scalar checks happen here, as each value is read; rules that relate several
// fields are in validate.cpp, run on the typed result. T9k fields are strict: an unknown field is
// an error, since a mistyped field the simulator interprets would silently change results.
// Kubernetes-owned parts (metadata, the pod template) follow the API server, which drops unknown
// fields with a warning. Each part is decoded by the member functions of its own file.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "scenarios/format/detail/decode.hpp"

namespace t9k::scenarios::detail {

namespace m = t9k::model;

// Field names more than one part uses.
inline constexpr Severity kK8s = Severity::Warning;

// a followed by b.
inline std::vector<std::string_view> concat(std::span<const std::string_view> a,
                                            std::span<const std::string_view> b) {
  std::vector<std::string_view> r(a.begin(), a.end());
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

class Decoder {
 public:
  explicit Decoder(Report& r) : r_(r) {}

  // ---- an object and its metadata (decode_objects.cpp) ----
  m::Labels labels(const Val& v);
  void timestamp(const Val& v, m::OptionalTime& out);
  m::ObjectMeta metadata(const Val& v);
  std::optional<Object> plugin_job(MapReader& mr);
  std::optional<Object> object(const Val& v);

  // ---- pod templates (decode_pod_template.cpp) ----
  m::ResourceList resources(const Val& v);
  m::Container container(const Val& v);
  m::PodTemplateSpec pod_template(const Val& v);

  // ---- the jobs' specs (decode_job_specs.cpp) ----
  m::SchedulePolicy scheduler(const Val& v);
  // `enabled`, or the older spelling `enable` (UD; §7.1 "field-name drift"): accepted with a
  // warning and mapped, so manifests written against the older docs behave as their authors meant.
  bool enabled_flag(const MapReader& mr, bool fallback);
  m::RunMode run_mode(const Val& v);
  m::RunPolicy run_policy(const Val& v);
  std::optional<m::ElasticConfig> elastic(const Val& v);
  m::FinishRule finish_rule(const Val& v);
  m::GenericJobSpec generic_spec(const Val& v);
  m::PyTorchTrainingJobSpec pytorch_spec(const Val& v);
  m::DeepSpeedJobSpec deepspeed_spec(const Val& v);

  // ---- the jobs' status (decode_job_status.cpp) ----
  m::JobStatus job_status(const Val& v, std::span<const std::string_view> fields);

  // ---- Queue and PodGroup (decode_scheduling_objects.cpp) ----
  m::LabelSelector selector(const Val& v);
  m::QueueSpec queue_spec(const Val& v);
  m::QueueStatus queue_status(const Val& v);
  m::PodGroupSpec pod_group_spec(const Val& v);
  m::PodGroupStatus pod_group_status(const Val& v);

 private:
  Report& r_;
};

}  // namespace t9k::scenarios::detail
