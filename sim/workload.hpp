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

#include "scenarios/format/scenario.hpp"
#include "sim/kernel/random.hpp"

namespace t9k::sim {

// Anything that yields job submissions in non-decreasing submit time, pulled by the world as
// simulated time reaches them: generators here, trace readers elsewhere.
class SubmissionSource {
 public:
  virtual ~SubmissionSource() = default;
  // Puts the next job into `out`, moved there once (a job is large: each move of one was a
  // visible share of a trace's run); false, `out` empty, when the source is exhausted.
  virtual bool next(std::optional<scenarios::JobSubmission>& out) = 0;
  // The next job, or nullopt when the source is exhausted.
  std::optional<scenarios::JobSubmission> next() {
    std::optional<scenarios::JobSubmission> s;
    next(s);
    return s;
  }
};

// One generator's jobs (docs/scenario-format.md "generators"), lazily, in (submit time, job key)
// order. Stream names and what each draw depends on: sim/generator.cpp.
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

// Every lazily pulled source of a scenario's workload (generators, then traces), in a fixed
// order. The world submits their jobs merged by (submit time, job key).
std::vector<std::unique_ptr<SubmissionSource>> workload_sources(const scenarios::Scenario& scenario,
                                                                std::uint64_t replication);

// "<namespace>/<name>" of a submission, `default_namespace` when it names none: jobs of one
// instant are submitted in this key's order (explicit, generated and trace jobs alike).
std::string submission_key(const scenarios::JobSubmission& s, const std::string& default_namespace);

// Pulls every source to the end: the jobs a run submits besides the explicit ones, in
// submission order.
std::vector<scenarios::JobSubmission> expand_generators(const scenarios::Scenario& scenario,
                                                        std::uint64_t replication);

// The scenario with its generators expanded into workload.jobs (generators cleared).
scenarios::Scenario with_expanded_workload(const scenarios::Scenario& scenario,
                                           std::uint64_t replication);

}  // namespace t9k::sim
