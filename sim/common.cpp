#include "sim/common.hpp"

#include <fmt/format.h>

namespace t9k::sim {

void violation(const kernel::Kernel& k, const std::string& what) {
  throw InvariantViolation(fmt::format("invariant violated at t={} s (event #{}): {}",
                                       kernel::format_seconds(k.now()), k.dispatched(), what));
}

model::ResourceList queue_view(const model::ResourceList& r) {
  const auto share = r.find(kGpuMilliName);
  if (share == r.end()) return r;
  model::ResourceList out = r;
  out.erase(kGpuMilliName);
  out[model::kResourceGpu] = model::Quantity::from_milli(
      model::get_resource(r, model::kResourceGpu).milli() + share->second.units_ceil());
  return out;
}

std::pair<std::int32_t, std::int32_t> status_counters(const model::JobStatus& s) {
  std::int32_t restarts = 0;
  for (const auto& t : s.tasks) restarts += t.restart_count;
  return {restarts, s.backoff_count.value_or(0)};
}

SimDuration draw_duration(const scenarios::DurationDistribution& d, kernel::Rng& rng) {
  const double s = d.seconds(rng);
  if (!(s > 0)) return SimDuration{0};
  return SimDuration{static_cast<std::int64_t>(std::llround(std::min(s, 1e12) * 1e6))};
}

}  // namespace t9k::sim
