// What every component of the world uses: invariant violations, pod state predicates, a job's
// status counters and the payload table of pending events. (GPU amounts are the model's,
// model/accelerators.hpp; duration draws the scenario's, scenarios::DurationDistribution::draw.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/kernel.hpp"
#include "kernel/random.hpp"
#include "model/change.hpp"
#include "model/cluster.hpp"
#include "model/quantity.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/events.hpp"

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
