#include "workload/trace_cursor.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::workload {

namespace fs = std::filesystem;
using kernel::SimDuration;
using kernel::SimTime;

TraceCursor::TraceCursor(const scenarios::TraceEntry& entry, const kernel::RngStreams& streams,
                         SimTime horizon, bool t9k_scheduler, std::string default_namespace)
    : e_(&entry),
      data_(entry.data),
      sample_(streams.stream("traces/" + entry.name + "/sample")),
      horizon_(horizon),
      t9k_(t9k_scheduler),
      default_namespace_(std::move(default_namespace)) {}

bool TraceCursor::next(std::optional<scenarios::JobSubmission>& out) {
  out.reset();
  if (ready_ == 0) {
    // Every job of the next instant (the same records as in file order: the window, sampling
    // draws and limit are decided record by record first), then sorted by job key. The queue
    // holds at most the look-ahead job here: the first of this instant.
    if (queue_.empty() && !pull_in_file_order()) return false;
    const SimTime at = queue_.front().submit_time;
    while (queue_.back().submit_time == at && pull_in_file_order()) {
    }
    ready_ = queue_.back().submit_time == at ? queue_.size() : queue_.size() - 1;
    if (ready_ > 1) sort_ready();
  }
  out.emplace(std::move(queue_.front()));
  queue_.pop_front();
  --ready_;
  return true;
}

// By job key, each key built once and each job moved once: an instant of a busy trace holds a
// thousand jobs, and sorting the jobs themselves moved them and built two keys per comparison.
// Keys are unique (the store refuses two jobs of one name), so the order is the one any sort by
// key gives.
void TraceCursor::sort_ready() {
  std::vector<std::pair<std::string, std::size_t>> keys;
  keys.reserve(ready_);
  for (std::size_t i = 0; i < ready_; ++i)
    keys.emplace_back(submission_key(queue_[i], default_namespace_), i);
  std::sort(keys.begin(), keys.end());
  std::vector<scenarios::JobSubmission> sorted;
  sorted.reserve(ready_);
  for (const auto& k : keys) sorted.push_back(std::move(queue_[k.second]));
  std::move(sorted.begin(), sorted.end(), queue_.begin());
}

bool TraceCursor::pull_in_file_order() {
  if (done_ || !data_) return false;
  const auto& d = *data_;
  const std::int64_t origin = e_->origin_us.value_or(d.origin_us());
  const std::int64_t from = e_->from ? e_->from->count() : 0;
  while (index_ < d.records.size()) {
    if (e_->limit && emitted_ >= *e_->limit) break;
    const auto& r = d.records[index_++];
    // Trace time since the origin (the scenario's earliest trace submission, or the epoch);
    // records before an epoch are outside every window.
    std::int64_t rel = 0;
    if (__builtin_sub_overflow(r.submit_us, origin, &rel)) {
      if (r.submit_us < origin) continue;  // ages before the epoch
      break;                               // ages after it: beyond any window or horizon
    }
    if (rel < from) continue;
    if (e_->to && rel >= e_->to->count()) break;  // records are sorted: nothing later is inside
    // One draw per record in the window, so the kept set depends only on the seed, the
    // replication and the entry (not on the horizon or the limit).
    if (e_->sample < 1 && !(sample_.uniform01() < e_->sample)) continue;
    // Gaps scale by 1 / loadFactor: offsets from the window start do, exactly.
    const double scaled = static_cast<double>(rel - from) / e_->load_factor;
    // Past the horizon (in double, before it is rounded to an integer that could overflow: a
    // tiny loadFactor stretches a far record beyond the clock's range).
    if (scaled > static_cast<double>((horizon_ - SimTime{e_->time_offset}).count())) break;
    const SimTime submit =
        SimTime{e_->time_offset} + SimDuration{static_cast<std::int64_t>(std::llround(scaled))};
    if (submit > horizon_) break;
    ++emitted_;
    trace_job(*e_, d, r, submit, t9k_, queue_.emplace_back(), &templates_);
    return true;
  }
  done_ = true;
  data_.reset();  // d is not read again
  return false;
}

std::vector<scenarios::JobSubmission> expand_traces(const scenarios::Scenario& sc,
                                                    std::uint64_t replication) {
  std::vector<scenarios::JobSubmission> out;
  const kernel::RngStreams streams(sc.seed, replication);
  for (const auto& t : sc.workload.traces) {
    TraceCursor c(t, streams, SimTime{sc.horizon},
                  sc.scheduler.kind == scenarios::SchedulerKind::T9k, sc.default_namespace);
    while (auto s = c.next()) out.push_back(std::move(*s));
  }
  // The world's submission order: (submit time, job key); names are unique.
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
    return submission_key(a, sc.default_namespace) < submission_key(b, sc.default_namespace);
  });
  return out;
}

}  // namespace t9k::workload
