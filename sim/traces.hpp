// Trace replay (docs/traces.md): a SubmissionSource over a loaded trace (scenarios/traces.hpp)
// that applies the entry's window, sampling, limit and load factor and maps each kept record to
// a job only when the world pulls it; and `t9ksim import`, which writes the same jobs as
// ordinary manifests plus a scenario that replays them identically.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/format/scenario.hpp"
#include "scenarios/format/traces.hpp"
#include "sim/kernel/random.hpp"
#include "sim/workload.hpp"

namespace t9k::sim {

class TraceCursor : public SubmissionSource {
 public:
  // `entry` (and its data) must outlive the cursor. An entry without data (file references off)
  // yields nothing.
  // Jobs of one instant go out sorted by job key (`default_namespace` for jobs without one), the
  // order the world submits explicit and generated jobs in, so a trace and its import agree.
  TraceCursor(const scenarios::TraceEntry& entry, const kernel::RngStreams& streams,
              kernel::SimTime horizon, bool t9k_scheduler, std::string default_namespace);
  bool next(std::optional<scenarios::JobSubmission>& out) override;
  using SubmissionSource::next;

 private:
  bool pull_in_file_order();  // appends the next record's job to queue_; false at the end
  const scenarios::TraceEntry* e_;
  kernel::Rng sample_;
  kernel::SimTime horizon_;
  bool t9k_;
  std::string default_namespace_;
  std::size_t index_ = 0;
  std::int64_t emitted_ = 0;
  bool done_ = false;
  // The current instant's jobs not yet returned (the first `ready_`, sorted by key), then at most
  // one job of the next instant: the look-ahead that ended the instant. Jobs are built in place
  // here and moved out once (a job is large; moving it was a visible share of a trace's run).
  std::deque<scenarios::JobSubmission> queue_;
  std::size_t ready_ = 0;
};

// Every job the scenario's trace entries submit in a replication, in submission order.
std::vector<scenarios::JobSubmission> expand_traces(const scenarios::Scenario& scenario,
                                                    std::uint64_t replication);

struct ImportResult {
  std::int64_t jobs = 0;
  std::string scenario_path;  // DIR/scenario.yaml: the imported manifests
  std::string trace_path;     // DIR/trace.yaml: the same run as a trace entry
};

// Writes DIR/trace.yaml (given as text: the scenario with the trace entry), then, from it,
// DIR/jobs/<name>.yaml (one manifest per job), DIR/queues.yaml and DIR/scenario.yaml, whose
// run equals trace.yaml's for `replication` (same fingerprint). Throws std::runtime_error with
// the loader's findings when trace.yaml does not load.
ImportResult import_trace(const std::string& trace_scenario_text, const std::string& dir,
                          std::uint64_t replication, bool skip_bad_rows,
                          std::vector<scenarios::Diagnostic>& diagnostics);

}  // namespace t9k::sim
