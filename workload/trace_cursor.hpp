// Trace replay (docs/traces.md): a SubmissionSource over a loaded trace
// (scenarios/format/traces.hpp) that applies the entry's window, sampling, limit and load factor
// and maps each kept record to a job (trace_job) only when the world pulls it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/random.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/traces.hpp"
#include "workload/sources.hpp"

namespace t9k::workload {

// The last few distinct pod templates a cursor built: a trace's jobs differ in name and size,
// rarely in template, so each shares an equal one built before (model::Shared; issue 49).
using RecentTemplates = model::RecentValues<model::PodTemplateSpec>;

class TraceCursor : public SubmissionSource {
 public:
  // `entry` must outlive the cursor; its data need not: the cursor holds the records it reads,
  // and lets go of them once it has passed the last (the run's own copy may go before, so that
  // a replayed trace's records are freed: docs/performance.md "A trace's records freed once
  // replayed"). An entry without data (file references off) yields nothing.
  // Jobs of one instant go out sorted by job key (`default_namespace` for jobs without one), the
  // order the world submits explicit and generated jobs in, so a trace and its import agree.
  TraceCursor(const scenarios::TraceEntry& entry, const kernel::RngStreams& streams,
              kernel::SimTime horizon, bool t9k_scheduler, std::string default_namespace);
  bool next(std::optional<scenarios::JobSubmission>& out) override;
  using SubmissionSource::next;

 private:
  bool pull_in_file_order();  // appends the next record's job to queue_; false at the end
  void sort_ready();          // the first ready_ jobs of queue_, by job key
  const scenarios::TraceEntry* e_;
  std::shared_ptr<const scenarios::TraceData> data_;  // until the last record is read
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
  RecentTemplates templates_;
};

// The job a record becomes (docs/traces.md), submitted at `submit`, built into `out` (a
// default-constructed submission, where the job is to stay: a job is large to move). With
// `templates`, its pod template is shared with an equal one built before.
void trace_job(const scenarios::TraceEntry& e, const scenarios::TraceData& d,
               const scenarios::TraceRecord& r, kernel::SimTime submit, bool t9k_scheduler,
               scenarios::JobSubmission& out, RecentTemplates* templates = nullptr);

// Every job the scenario's trace entries submit in a replication, in submission order.
std::vector<scenarios::JobSubmission> expand_traces(const scenarios::Scenario& scenario,
                                                    std::uint64_t replication);

}  // namespace t9k::workload
