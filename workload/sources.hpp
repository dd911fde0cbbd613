// The workload's sources: what yields a scenario's jobs besides its explicit ones (generators,
// workload/generator.hpp; trace replays, workload/trace_cursor.hpp), pulled lazily by the world
// as simulated time reaches them. expand_generators() pulls the same sources to the end, so an
// expanded workload (t9ksim generate) and the lazy one are the same jobs at the same times.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/random.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::workload {

// Anything that yields job submissions in non-decreasing submit time, pulled by the world as
// simulated time reaches them: generator cursors (generator.hpp) and trace cursors
// (trace_cursor.hpp).
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

}  // namespace t9k::workload
