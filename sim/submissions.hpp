// Submissions: the scenario's jobs enter the cluster as simulated time reaches their submit
// time. Explicit jobs are known from the start; generators and trace cursors (the workload's
// sources, workload/sources.hpp) are pulled lazily, one job ahead each. Same-instant submissions
// go in job-key order, so the order never depends on how the jobs were listed. A submitted job is
// stored, given its controller and training, admitted by its queue (or rejected) and reconciled.
//
// The initial state's jobs (spec.initialState) go first at time zero; the running ones with their
// recorded placement, handed to the scheduling driver.
//
// Owns: the submissions not yet made and the sources' cursors.
// Handles: kSubmit.
// Calls: Store (the job), ControllerDriver, Training, SchedulingDriver (admission).
#pragma once

#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "sim/common.hpp"
#include "sim/settings.hpp"
#include "workload/initial_state.hpp"
#include "workload/sources.hpp"

namespace t9k::sim {

class Store;
class ControllerDriver;
class Training;
class SchedulingDriver;

class Submissions final : public kernel::EventHandler {
 public:
  Submissions(const scenarios::Scenario& scenario, std::uint64_t replication,
              kernel::Kernel& kernel, Store& store, ControllerDriver& controllers,
              Training& training, SchedulingDriver& scheduling);

  static constexpr EventKind kKinds[] = {kSubmit};
  void handle(const kernel::DispatchedEvent& event) override;

  // Queues the explicit jobs, opens the sources and schedules the first submission.
  void start();

 private:
  // A submission not yet made, earliest first; ties by `order` (the initial state's jobs go first,
  // in their own order: running, then waiting by creation), then by job key.
  struct Pending {
    SimTime time;
    std::int64_t order = 0;
    std::string key;
    std::int64_t explicit_index = -1;  // into scenario.workload.jobs, or -1 for a source's job
    std::size_t source = 0;
    std::int64_t initial_index = -1;  // into initial_, or -1
    bool operator>(const Pending& o) const {
      return std::tie(time, order, key) > std::tie(o.time, o.order, o.key);
    }
  };

  std::string key_of(const scenarios::JobSubmission& sub) const;
  void pull(std::size_t source);
  void schedule_next();
  std::optional<JobId> submit(scenarios::JobSubmission&& sub);  // a job is large: never moved twice

  const scenarios::Scenario& sc_;
  std::uint64_t replication_;
  kernel::Kernel& k_;
  Store& store_;
  ControllerDriver& controllers_;
  Training& training_;
  SchedulingDriver& scheduling_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::vector<std::unique_ptr<workload::SubmissionSource>> sources_;
  std::vector<std::optional<scenarios::JobSubmission>> next_;  // each source's job ahead
  std::vector<workload::InitialSubmission> initial_;           // spec.initialState's jobs
};

}  // namespace t9k::sim
