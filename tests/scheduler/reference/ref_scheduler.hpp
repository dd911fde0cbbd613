// FROZEN REFERENCE (test only): the scheduler's cycle as it was before the incremental rewrite
// (full per-cycle reset of the overlay, every pending group attempted). The equivalence test
// compares the production scheduler's decisions with it; do not optimise or change it.
#pragma once

#include <memory>

#include "scheduler/scheduler.hpp"

namespace t9k::scheduler::reference {

class ReferenceScheduler {
 public:
  explicit ReferenceScheduler(SchedulerOptions options = {});
  ~ReferenceScheduler();
  Decisions schedule(const ClusterSnapshot& snapshot, model::SimTime now);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace t9k::scheduler::reference
