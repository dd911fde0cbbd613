// Generators turn a scenario's generator entries into job submissions. Each generator draws
// from its own named stream, so changing one generator never moves another's jobs, and the same
// seed and replication give the same jobs under any policy (common random numbers). The world
// pulls jobs from a GeneratorCursor lazily as simulated time reaches them; expand_generators()
// pulls the same cursors to the end, so an expanded workload (t9ksim generate) and the lazy one
// are the same jobs at the same times.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "sim/kernel/random.hpp"

namespace t9k::sim {

// Anything that yields job submissions in non-decreasing submit time, pulled by the world as
// simulated time reaches them: generators here, trace readers elsewhere.
class SubmissionSource {
 public:
  virtual ~SubmissionSource() = default;
  // The next job, or nullopt when the source is exhausted.
  virtual std::optional<scenarios::JobSubmission> next() = 0;
};

class GeneratorCursor : public SubmissionSource {
 public:
  GeneratorCursor(const scenarios::GeneratorEntry& g, const kernel::RngStreams& streams, kernel::SimTime horizon);
  // The next job, or nullopt once the generator's count, stop time or the horizon is reached.
  std::optional<scenarios::JobSubmission> next() override;

 private:
  const scenarios::GeneratorEntry* g_;
  kernel::Rng arrivals_;
  kernel::SimTime horizon_;
  kernel::SimTime t_;
  std::int64_t index_ = 0;
  std::string base_;
  bool done_ = false;
};

// Every lazily pulled source of a scenario's workload (generators, then traces), in a fixed
// order. The world submits their jobs merged by (submit time, job key).
std::vector<std::unique_ptr<SubmissionSource>> workload_sources(const scenarios::Scenario& scenario,
                                                                std::uint64_t replication);

// Pulls every source to the end: the jobs a run submits besides the explicit ones, in
// submission order.
std::vector<scenarios::JobSubmission> expand_generators(const scenarios::Scenario& scenario,
                                                        std::uint64_t replication);

// The scenario with its generators expanded into workload.jobs (generators cleared).
scenarios::Scenario with_expanded_workload(const scenarios::Scenario& scenario, std::uint64_t replication);

}  // namespace t9k::sim
