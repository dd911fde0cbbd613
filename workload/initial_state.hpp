// The cluster's state at time zero (spec.initialState, docs/forecast.md), as the submissions
// room submits it: the export's running jobs first, each with the nodes its pods ran on, then
// its waiting jobs, each in creation order. The world's submissions room (sim/submissions.hpp)
// submits them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/format/scenario.hpp"

namespace t9k::workload {

struct InitialSubmission {
  scenarios::JobSubmission submission;  // at time zero
  bool running = false;
  // Running jobs: (pod name, node) where the export saw its pods; the scheduling driver binds
  // them there first (SchedulingDriver::pin).
  std::vector<std::pair<std::string, std::string>> pins;
  kernel::SimDuration elapsed{0};    // run time before time zero
  kernel::SimDuration remaining{0};  // run time from time zero, as the remaining model gave it
};

// The scenario's initial jobs in submission order (none without spec.initialState). Draws of the
// remaining and queued-run-time models come from streams initialState/remaining and
// initialState/queuedRunTime of the replication.
std::vector<InitialSubmission> initial_submissions(const scenarios::Scenario& scenario,
                                                   std::uint64_t replication);

// initial-state.csv (docs/outputs.md): one row per initial job in submission order: job, kind,
// queue, state (Running or Waiting), gpus, elapsed_s, remaining_s, nodes (the recorded nodes,
// space-separated).
std::string initial_state_csv(const scenarios::Scenario& scenario,
                              const std::vector<InitialSubmission>& jobs);

}  // namespace t9k::workload
