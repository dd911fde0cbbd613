// Internal: the reconcile logic shared by the three kinds. Each controller turns its job into a
// JobView (replica types with their desired counts and policies, run policy, run mode) and
// reconcile_job (reconcile.cpp, its stages' helpers in detail/slots.hpp) does the rest; the
// kind-specific decision (rules vs master) is chosen by JobView::kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "controllers/controller.hpp"

namespace t9k::controllers::detail {

struct TypeView {
  std::string_view type;          // the job spec's replica type (the spec outlives the reconcile)
  std::int32_t replicas = 0;      // desired replicas now (elastic share applied)
  std::int32_t min_replicas = 0;  // PodGroup role minimum
  model::RestartPolicyType policy = model::RestartPolicyType::Never;
  std::int32_t limit = 0;  // GenericJob restartPolicy.limit
  const model::PodTemplateSpec* template_ = nullptr;
};

struct JobView {
  model::JobKind kind = model::JobKind::GenericJob;
  std::string_view kind_name;  // static storage (Controller::kind() of a built-in kind)
  const model::ObjectMeta* meta = nullptr;
  const model::JobStatus* status = nullptr;
  // Inline for the usual few types: a reconcile allocates nothing for its view.
  boost::container::small_vector<TypeView, 4> types;
  bool has_backoff_limit = false;  // PyTorch and DeepSpeed (§2.3)
  std::int32_t backoff_limit = 0;
  std::optional<std::int64_t> active_deadline_seconds;
  model::CleanUpPolicy clean_up = model::CleanUpPolicy::None;
  const model::RunMode* run_mode = nullptr;
  const model::SchedulePolicy* scheduler = nullptr;
  bool elastic = false;
  std::int32_t elastic_min = 0;
  std::int32_t elastic_target = 0;
  std::int32_t slots_per_worker = 1;                    // DeepSpeed processes per worker (§5)
  const model::GenericJobSpec* generic = nullptr;       // GenericJob rules (§3.1)
  const model::TensorBoardSpec* tensorboard = nullptr;  // PyTorch (§9)
  std::string_view training_container;  // preferred container name; else the first container
};

ReconcileResult reconcile_job(const JobView& view, const ReconcileInput& input);

// §11 Q8: split `total` across weights by largest remainder (ties to the earlier entry).
// In kinds.cpp, beside the views that use it.
std::vector<std::int32_t> split_by_weight(std::int32_t total,
                                          const std::vector<std::int32_t>& weights);

}  // namespace t9k::controllers::detail
