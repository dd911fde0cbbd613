// The recorder's accounting invariants: what its figures must agree on exactly, checked at the
// end of every run and reported in summary.json's `invariants` (docs/outputs.md).
#include <fmt/format.h>

#include "analysis/recorder.hpp"

namespace t9k::analysis {

std::vector<std::string> Recorder::check_invariants() const {
  std::vector<std::string> v;
  const auto str = int128_to_string;
  // GPU-seconds conservation: the integral of the allocated-GPU level equals the sum over pods of
  // (bind -> release) x GPUs, exactly (integer milli-GPU x microseconds).
  if (cluster_.allocated.area != total_allocated_) {
    v.push_back(
        fmt::format("GPU-seconds conservation: integral of allocated GPUs {} milli-GPU-µs != Σ "
                    "pods {} milli-GPU-µs",
                    str(cluster_.allocated.area), str(total_allocated_)));
  }
  // The node timeline (occupancy.csv) places the same GPU-seconds on the nodes, exactly.
  if (occupancy_.allocated_area() != cluster_.allocated.area) {
    v.push_back(
        fmt::format("GPU-seconds conservation: the node timeline holds {} milli-GPU-µs, "
                    "the cluster {}",
                    str(occupancy_.allocated_area()), str(cluster_.allocated.area)));
  }
  Int128 per_queue = 0;
  for (const auto& [name, s] : scopes_) per_queue += s.allocated.area;
  if (per_queue != cluster_.allocated.area) {
    v.push_back(fmt::format("GPU-seconds conservation: queues sum to {} milli-GPU-µs, cluster {}",
                            str(per_queue), str(cluster_.allocated.area)));
  }
  // The productive series spreads exactly the progress the jobs kept over time.
  Int128 per_queue_productive = 0;
  for (const auto& [name, s] : scopes_) per_queue_productive += s.productive.area;
  if (cluster_.productive.area != total_productive_ || per_queue_productive != total_productive_) {
    v.push_back(fmt::format(
        "productive GPU-time: the series hold {} (cluster) and {} (queues) milli-GPU-µs, the "
        "jobs kept {}",
        str(cluster_.productive.area), str(per_queue_productive), str(total_productive_)));
  }
  // Little's law per queue and cluster: ∫N(t)dt == Σ time in system, exactly.
  if (cluster_.in_system.area != cluster_.sojourn_us) {
    v.push_back(fmt::format("Little's law (cluster): ∫N dt = {} µs but Σ sojourn = {} µs",
                            str(cluster_.in_system.area), str(cluster_.sojourn_us)));
  }
  for (const auto& [name, s] : scopes_) {
    if (s.in_system.area != s.sojourn_us) {
      v.push_back(fmt::format("Little's law (queue '{}'): ∫N dt = {} µs but Σ sojourn = {} µs",
                              name, str(s.in_system.area), str(s.sojourn_us)));
    }
  }
  // Waiting by cause: the per-job intervals add up to the integral of the cluster's per-cause
  // counts of waiting jobs, exactly.
  AllFigures scratch;
  const AllFigures& f = figures(scratch);
  for (int c = 0; c < model::kPendingCauses; ++c) {
    const Int128 jobs = f.pending_us[c];
    if (jobs != cluster_.pending_by_cause[c].area) {
      v.push_back(fmt::format("waiting by cause {}: Σ jobs {} µs != ∫ waiting jobs dt {} µs",
                              model::to_string(static_cast<model::PendingCause>(c)), str(jobs),
                              str(cluster_.pending_by_cause[c].area)));
    }
  }
  // Accounting per job: productive and lost never exceed what was allocated (the first such job).
  if (f.accounting_violation) v.push_back(*f.accounting_violation);
  // Allocation never exceeds capacity on average per bucket (each node is checked by the world).
  return v;
}

}  // namespace t9k::analysis
