#include "sim/common.hpp"

#include <fmt/format.h>

namespace t9k::sim {

void violation(const kernel::Kernel& k, const std::string& what) {
  throw InvariantViolation(fmt::format("invariant violated at t={} s (event #{}): {}",
                                       kernel::format_seconds(k.now()), k.dispatched(), what));
}

std::pair<std::int32_t, std::int32_t> status_counters(const model::JobStatus& s) {
  std::int32_t restarts = 0;
  for (const auto& t : s.tasks) restarts += t.restart_count;
  return {restarts, s.backoff_count.value_or(0)};
}

}  // namespace t9k::sim
