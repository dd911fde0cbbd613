#include "analysis/replay_check.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "analysis/statistics.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis {

namespace {

std::string seconds(const std::optional<double>& v) {
  return v ? fmt::format("{:.6f}", *v) : std::string();
}

ErrorStats stats_of(const std::vector<double>& errors) {
  ErrorStats s;
  s.jobs = static_cast<std::int64_t>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> abs(errors.size());
  std::transform(errors.begin(), errors.end(), abs.begin(), [](double e) { return std::fabs(e); });
  s.median_abs_s = percentile(std::span<const double>(abs), 0.5);
  s.p90_abs_s = percentile(std::span<const double>(abs), 0.9);
  s.max_abs_s = *std::max_element(abs.begin(), abs.end());
  double sum = 0;
  for (const double e : errors) sum += e;
  s.mean_s = sum / static_cast<double>(errors.size());
  return s;
}

std::string stats_line(const char* what, const ErrorStats& s) {
  if (s.jobs == 0) return fmt::format("{}: no job to compare\n", what);
  return fmt::format("{}: {} jobs, |error| median {}, p90 {}, max {}; mean {}{}\n", what,
                     format_count(static_cast<double>(s.jobs)), format_duration_s(s.median_abs_s),
                     format_duration_s(s.p90_abs_s), format_duration_s(s.max_abs_s),
                     s.mean_s < 0 ? "-" : "+", format_duration_s(std::fabs(s.mean_s)));
}

}  // namespace

std::optional<double> ReplayCheckRow::wait_error_s() const {
  if (!found || !recorded.start_s || !simulated.start_s) return std::nullopt;
  return (*simulated.start_s - recorded.submit_s) - (*recorded.start_s - recorded.submit_s);
}

std::optional<double> ReplayCheckRow::end_error_s() const {
  if (!found || !simulated.end_s) return std::nullopt;
  return *simulated.end_s - recorded.end_s;
}

std::map<std::string, SimulatedJob> simulated_jobs(const CsvTable& t) {
  std::map<std::string, SimulatedJob> out;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    out[std::string(t.field(i, "job"))] =
        SimulatedJob{t.number(i, "first_running_s"), t.number(i, "end_s")};
  }
  return out;
}

ReplayCheck compare_replay(const std::vector<RecordedJob>& recorded,
                           const std::map<std::string, SimulatedJob>& simulated) {
  ReplayCheck c;
  std::vector<double> waits, ends;
  for (const auto& r : recorded) {
    ReplayCheckRow row;
    row.recorded = r;
    if (const auto it = simulated.find(r.job); it != simulated.end()) {
      row.found = true;
      row.simulated = it->second;
    }
    if (!row.found) {
      ++c.not_found;
    } else {
      if (!row.simulated.start_s) ++c.not_started;
      if (!row.simulated.end_s) ++c.not_finished;
      if (!r.start_s) ++c.wait_unknown;
    }
    if (const auto e = row.wait_error_s()) waits.push_back(*e);
    if (const auto e = row.end_error_s()) ends.push_back(*e);
    c.rows.push_back(std::move(row));
  }
  c.wait = stats_of(waits);
  c.end = stats_of(ends);
  return c;
}

std::string replay_check_csv(const ReplayCheck& c) {
  std::string s = csv_row({"job", "submit_s", "recorded_wait_s", "simulated_wait_s", "wait_error_s",
                           "recorded_end_s", "simulated_end_s", "end_error_s"});
  for (const auto& r : c.rows) {
    const auto& rec = r.recorded;
    std::optional<double> rec_wait, sim_wait;
    if (rec.start_s) rec_wait = *rec.start_s - rec.submit_s;
    if (r.simulated.start_s) sim_wait = *r.simulated.start_s - rec.submit_s;
    s += csv_row({rec.job, seconds(rec.submit_s), seconds(rec_wait), seconds(sim_wait),
                  seconds(r.wait_error_s()), seconds(rec.end_s), seconds(r.simulated.end_s),
                  seconds(r.end_error_s())});
  }
  return s;
}

std::string replay_check_summary(const ReplayCheck& c) {
  std::string s = fmt::format("replay-check: {} recorded jobs\n",
                              format_count(static_cast<double>(c.rows.size())));
  s += stats_line("  wait (simulated - recorded)", c.wait);
  s += stats_line("  end (simulated - recorded)", c.end);
  if (c.wait_unknown > 0) {
    s += fmt::format(
        "  {} jobs without an exact recorded start (no pods in the export, no status.startTime): "
        "their waits are not compared\n",
        c.wait_unknown);
  }
  if (c.not_started + c.not_finished + c.not_found > 0) {
    s += fmt::format("  {} never started and {} not finished in the simulation, {} not simulated\n",
                     c.not_started, c.not_finished, c.not_found);
  }
  return s;
}

}  // namespace t9k::analysis
