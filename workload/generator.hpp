// Generators turn a scenario's generator entries into job submissions. Each generator draws
// from its own named stream, so changing one generator never moves another's jobs, and the same
// seed and replication give the same jobs under any policy (common random numbers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/random.hpp"
#include "scenarios/format/scenario.hpp"
#include "workload/sources.hpp"

namespace t9k::workload {

// One generator's jobs (docs/scenario-format.md "generators"), lazily, in (submit time, job key)
// order. Stream names and what each draw depends on: workload/generator.cpp.
class GeneratorCursor : public SubmissionSource {
 public:
  GeneratorCursor(const scenarios::GeneratorEntry& g, const kernel::RngStreams& streams,
                  kernel::SimTime horizon, std::string default_namespace = "default");
  ~GeneratorCursor() override;
  GeneratorCursor(GeneratorCursor&&) noexcept;
  // The next job; none once the generator's count, stop time or the horizon is reached.
  bool next(std::optional<scenarios::JobSubmission>& out) override;
  using SubmissionSource::next;

 private:
  struct ClassState;
  std::optional<kernel::SimTime> next_arrival();
  scenarios::JobSubmission make_job(std::size_t cls, kernel::SimTime at);
  void fill();
  double rate_per_hour(kernel::SimTime t) const;
  bool past_end(kernel::SimTime t) const;

  const scenarios::GeneratorEntry* g_;
  kernel::Rng arrivals_;
  kernel::Rng thinning_;
  kernel::Rng burst_size_;
  kernel::Rng class_choice_;
  kernel::SimTime horizon_;
  kernel::SimTime t_;
  std::string default_namespace_;
  std::vector<ClassState> classes_;
  std::optional<kernel::Categorical> mix_;
  double max_rate_per_hour_ = 0;
  std::size_t time_index_ = 0;
  std::int64_t emitted_ = 0;
  std::optional<kernel::SimTime> lookahead_;
  bool arrivals_done_ = false;
  std::vector<scenarios::JobSubmission> buffer_;  // jobs of one instant, last to go first
  bool done_ = false;
};

}  // namespace t9k::workload
