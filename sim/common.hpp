// What every component of the world uses: invariant violations, GPU amounts of a request, pod
// state predicates, duration draws and the payload table of pending events.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/change.hpp"
#include "model/cluster.hpp"
#include "model/quantity.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/events.hpp"
#include "sim/kernel/kernel.hpp"
#include "sim/kernel/random.hpp"

namespace t9k::sim {

using kernel::SimDuration;
using kernel::SimTime;
using model::JobId;

// Thrown when a run breaks one of the invariants (issue 6 §8); the message names the first
// offending event.
class InvariantViolation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws InvariantViolation naming the simulated time and the event being dispatched.
[[noreturn]] void violation(const kernel::Kernel& k, const std::string& what);

// ---- GPU amounts ----

// Resource names as std::string once: ResourceList look-ups by a C string build one each time.
inline const std::string kGpuName = model::kResourceGpu;
inline const std::string kGpuMilliName = model::kResourceGpuMilli;

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
  std::int64_t gpus_of(const model::ResourceList& r) const {
    if (names_.size() == 1) return model::get_resource(r, names_.front()).units_ceil();
    std::int64_t n = 0;
    for (const auto& name : names_) n += model::get_resource(r, name).units_ceil();
    return n;
  }
  // Milli-GPU, the unit of the change feed (model/change.hpp): whole GPUs × 1000 plus a share
  // of one GPU (t9ksim.io/gpu-milli, 1..1000).
  std::int64_t gpu_milli_of(const model::ResourceList& r) const {
    return gpus_of(r) * model::kGpuMilliPerGpu + model::get_resource(r, kGpuMilliName).units_ceil();
  }
  // Exact milli amounts summed (quotas and queue usage, where shares are fractions of a GPU).
  std::int64_t milli_of(const model::ResourceList& r) const {
    std::int64_t n = 0;
    for (const auto& name : names_) n += model::get_resource(r, name).milli();
    return n;
  }
  // The accelerator a node offers (the first of the names it has), for faults of one GPU.
  const std::string& resource_of(const model::ResourceList& capacity) const {
    for (const auto& name : names_) {
      if (!model::get_resource(capacity, name).is_zero()) return name;
    }
    return names_.front();
  }

 private:
  std::vector<std::string> names_;
};

// A pod's share of one GPU in milli (t9ksim.io/gpu-milli), 0 for other pods.
inline std::int32_t share_of(const model::ResourceList& r) {
  return static_cast<std::int32_t>(model::get_resource(r, kGpuMilliName).units_ceil());
}

// Requests as a queue counts them: a share is a fraction of nvidia.com/gpu (docs/scheduler.md).
model::ResourceList queue_view(const model::ResourceList& r);

// GPU-time of `us` microseconds on `gpu_milli` milli-GPU, exact (milli-GPU × µs).
inline model::Int128 gpu_time(std::int64_t us, std::int64_t gpu_milli) {
  return static_cast<model::Int128>(us) * gpu_milli;
}

// ---- pods and jobs ----

inline bool terminated(const model::Pod& p) {
  return p.phase == model::PodPhase::Succeeded || p.phase == model::PodPhase::Failed;
}
inline bool live(const model::Pod& p) { return !terminated(p) && !p.deletion_timestamp; }
// A live pod whose containers run: what training counts.
inline bool live_and_running(const model::Pod& p) {
  return live(p) && p.phase == model::PodPhase::Running;
}

// (sum of tasks[].restartCount, backoffCount): published whenever they change.
std::pair<std::int32_t, std::int32_t> status_counters(const model::JobStatus& s);

// ---- randomness ----

// A draw in whole microseconds; non-positive draws are 0, huge ones capped at 10^12 s.
SimDuration draw_duration(const scenarios::DurationDistribution& d, kernel::Rng& rng);

// ---- pending events' payloads ----

// What a pending event needs beyond its key (a pod name, a list of nodes), parked here and
// addressed by the event's arg; taken once, when the event fires. Slots are reused.
template <class T>
class Parked {
 public:
  kernel::EventArg park(T item) {
    if (!free_.empty()) {
      const auto slot = free_.back();
      free_.pop_back();
      items_[slot] = std::move(item);
      return slot;
    }
    items_.push_back(std::move(item));
    return items_.size() - 1;
  }
  T take(kernel::EventArg slot) {
    T out = std::move(items_.at(slot));
    items_[slot] = T{};
    free_.push_back(static_cast<std::size_t>(slot));
    return out;
  }
  std::size_t pending() const { return items_.size() - free_.size(); }

 private:
  std::vector<T> items_;
  std::vector<std::size_t> free_;
};

}  // namespace t9k::sim
