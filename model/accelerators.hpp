// GPU accounting: which resources count as GPUs, a request's GPUs in whole GPUs and in milli-GPU,
// shares of one GPU, requests as a queue counts them, and GPU-time. The world books and
// publishes with these; the workload (fits, the initial state) and the commands count with the
// same rules.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel/hash.hpp"
#include "model/jobs.hpp"
#include "model/meta.hpp"
#include "model/shared.hpp"

namespace t9k::model {

// Resource names as std::string once: ResourceList look-ups by a C string build one each time.
inline const std::string kGpuName = kResourceGpu;
inline const std::string kGpuMilliName = kResourceGpuMilli;

// The resources a cluster counts as GPUs (spec.cluster.accelerators; nvidia.com/gpu unless the
// scenario names others, such as hygon.com/dcu): GPU-hours, utilisation, GPU faults and the
// greedy elastic policy count them all alike. Held by the store; one name is the common case.
class Accelerators {
 public:
  Accelerators() : names_{kGpuName} {}
  explicit Accelerators(std::vector<std::string> names) : names_(std::move(names)) {
    if (names_.empty()) names_.push_back(kGpuName);
  }
  // Whole GPUs, each accelerator rounded up, summed.
  std::int64_t gpus_of(const ResourceList& r) const {
    if (names_.size() == 1) return get_resource(r, names_.front()).units_ceil();
    std::int64_t n = 0;
    for (const auto& name : names_) n += get_resource(r, name).units_ceil();
    return n;
  }
  // Milli-GPU, the unit of the change feed (model/change.hpp): whole GPUs × 1000 plus a share
  // of one GPU (t9ksim.io/gpu-milli, 1..1000).
  std::int64_t gpu_milli_of(const ResourceList& r) const {
    return gpus_of(r) * kGpuMilliPerGpu + get_resource(r, kGpuMilliName).units_ceil();
  }
  // Exact milli amounts summed (quotas and queue usage, where shares are fractions of a GPU).
  std::int64_t milli_of(const ResourceList& r) const {
    std::int64_t n = 0;
    for (const auto& name : names_) n += get_resource(r, name).milli();
    return n;
  }
  // The accelerator a node offers (the first of the names it has), for faults of one GPU.
  const std::string& resource_of(const ResourceList& capacity) const {
    for (const auto& name : names_) {
      if (!get_resource(capacity, name).is_zero()) return name;
    }
    return names_.front();
  }

 private:
  std::vector<std::string> names_;
};

// A pod's share of one GPU in milli (t9ksim.io/gpu-milli), 0 for other pods.
inline std::int32_t share_of(const ResourceList& r) {
  return static_cast<std::int32_t>(get_resource(r, kGpuMilliName).units_ceil());
}

// Requests as a queue counts them: a share is a fraction of nvidia.com/gpu (docs/scheduler.md).
ResourceList queue_view(const ResourceList& r);

// GPU-time of `us` microseconds on `gpu_milli` milli-GPU, exact (milli-GPU × µs).
inline kernel::Int128 gpu_time(std::int64_t us, std::int64_t gpu_milli) {
  return static_cast<kernel::Int128>(us) * gpu_milli;
}

// What a job asks for at submission (the world books it; forecasts count its GPUs): its elastic
// bounds and replicas, derived from the spec (`expected` follows spec.elastic.expectedReplicas,
// clamped), and the requests of all its pods.
struct JobShape {
  bool elastic = false;
  std::int32_t min = 0, max = 0, expected = 0;
  std::int32_t replicas = 0;  // rigid total
  // All pods at submission; shared, since a trace's jobs of one size ask the same (issue 49).
  Shared<ResourceList> requests;
  std::int64_t gpus_per_first_pod = 0;
};
// `recent`: the requests kept are shared with an equal one among those last made.
JobShape shape_of(const Job& job, const Accelerators& accelerators,
                  RecentValues<ResourceList>* recent = nullptr);

}  // namespace t9k::model
