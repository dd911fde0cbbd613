#include "analysis/job_forecast.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/units.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Linear interpolation between closest ranks (docs/outputs.md), with +inf for a replication in
// which the job had not got there by the horizon: unset when the percentile needs one of those.
std::optional<double> percentile_or_later(std::vector<double> x, double p) {
  if (x.empty()) return std::nullopt;
  std::sort(x.begin(), x.end());
  const double rank = p * static_cast<double>(x.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  if (!std::isfinite(x[hi])) return std::nullopt;
  return x[lo] + (x[hi] - x[lo]) * (rank - static_cast<double>(lo));
}

// Row i of jobs.csv (the start in first_running_s) or of job-forecast.csv (in start_s): both name
// the other columns alike.
JobForecastRow row_of(const CsvTable& t, std::size_t i, std::uint64_t replication,
                      std::string_view start_column) {
  JobForecastRow r;
  r.replication = replication;
  r.start_s = t.number(i, start_column);
  r.end_s = t.number(i, "end_s");
  r.phase = std::string(t.field(i, "phase"));
  r.reason = std::string(t.field(i, "reason"));
  r.pending_cause = std::string(t.field(i, "pending_cause"));
  r.pending_reason = std::string(t.field(i, "pending_reason"));
  return r;
}

std::string optional_number(const std::optional<double>& v) {
  return v ? fmt::format("{:.6f}", *v) : std::string();
}

}  // namespace

std::string format_utc(double unix_s) {
  const auto t = static_cast<std::time_t>(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

JobForecastRow job_forecast_row(const fs::path& dir, const std::string& job,
                                std::uint64_t replication) {
  const fs::path file = dir / "jobs.csv";
  std::optional<JobForecastRow> found;
  for_each_csv_chunk(file, [&](const CsvTable& t) {
    for (std::size_t i = 0; i < t.rows.size() && !found; ++i) {
      if (t.field(i, "job") != job) continue;
      found = row_of(t, i, replication, "first_running_s");
    }
  });
  if (!found) throw std::runtime_error(file.string() + ": no row for job " + job);
  return *found;
}

std::string job_forecast_csv(const JobForecast& f) {
  std::string out = csv_row({"job", "kind", "queue", "gpus", "time_zero", "time_zero_unix_s",
                             "horizon_s", "replication", "start_s", "end_s", "start_time",
                             "end_time", "phase", "reason", "pending_cause", "pending_reason"});
  const auto when = [&](const std::optional<double>& s) {
    return s ? format_utc(static_cast<double>(f.time_zero_unix_s) + *s) : std::string();
  };
  for (const auto& r : f.rows) {
    out += csv_row({f.job, f.kind, f.queue, fmt::format("{}", f.gpus),
                    format_utc(static_cast<double>(f.time_zero_unix_s)),
                    fmt::format("{}", f.time_zero_unix_s), fmt::format("{:.6f}", f.horizon_s),
                    fmt::format("{}", r.replication), optional_number(r.start_s),
                    optional_number(r.end_s), when(r.start_s), when(r.end_s), r.phase, r.reason,
                    r.pending_cause, r.pending_reason});
  }
  return out;
}

JobForecast parse_job_forecast(const CsvTable& t) {
  JobForecast f;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (i == 0) {
      f.job = std::string(t.field(i, "job"));
      f.kind = std::string(t.field(i, "kind"));
      f.queue = std::string(t.field(i, "queue"));
      f.gpus = t.number(i, "gpus").value_or(0);
      f.time_zero_unix_s = static_cast<std::int64_t>(t.number(i, "time_zero_unix_s").value_or(0));
      f.horizon_s = t.number(i, "horizon_s").value_or(0);
    }
    f.rows.push_back(row_of(
        t, i, static_cast<std::uint64_t>(t.number(i, "replication").value_or(0)), "start_s"));
  }
  return f;
}

JobForecastAnswer answer_job_forecast(const JobForecast& f) {
  JobForecastAnswer a;
  a.n = f.rows.size();
  std::vector<double> starts, ends;
  std::map<std::string, JobForecastAnswer::Cause> causes;
  for (const auto& r : f.rows) {
    starts.push_back(r.start_s.value_or(kInf));
    // A job that ended without running (rejected) has an end but no start: it never ran.
    ends.push_back(r.start_s && r.end_s ? *r.end_s : kInf);
    a.started += r.start_s.has_value();
    a.ended += r.start_s && r.end_s;
    if (r.phase == "Rejected") {
      if (a.rejected++ == 0) a.rejection = r.reason;
      continue;
    }
    if (r.pending_cause.empty()) {
      ++a.never_waited;
      continue;
    }
    auto& c = causes[r.pending_cause];
    c.cause = r.pending_cause;
    if (c.count++ == 0) c.reason = r.pending_reason;
  }
  a.start_p50 = percentile_or_later(starts, 0.5);
  a.start_p90 = percentile_or_later(starts, 0.9);
  a.end_p50 = percentile_or_later(ends, 0.5);
  a.end_p90 = percentile_or_later(ends, 0.9);
  for (auto& [name, c] : causes) a.causes.push_back(std::move(c));
  std::stable_sort(a.causes.begin(), a.causes.end(),
                   [](const auto& x, const auto& y) { return x.count > y.count; });
  return a;
}

std::vector<std::string> job_forecast_lines(const JobForecast& f, const JobForecastAnswer& a) {
  std::vector<std::string> lines;
  const double t0 = static_cast<double>(f.time_zero_unix_s);
  const auto at = [&](const std::optional<double>& s) {
    if (!s) return fmt::format("after the {} horizon", format_duration_s(f.horizon_s));
    return fmt::format("{} (in {})", format_utc(t0 + *s), format_duration_s(*s));
  };
  lines.push_back(fmt::format("{} ({}{}, {} GPUs) submitted at {}, over {} replication{}:", f.job,
                              f.kind, f.queue.empty() ? "" : ", queue " + f.queue,
                              format_count(f.gpus), format_utc(t0), a.n, a.n == 1 ? "" : "s"));
  lines.push_back(fmt::format("starts: p50 {}, p90 {}", at(a.start_p50), at(a.start_p90)));
  lines.push_back(fmt::format("ends: p50 {}, p90 {}", at(a.end_p50), at(a.end_p90)));
  lines.push_back(
      fmt::format("started in {} of {} replications and finished in {} within the "
                  "{} horizon",
                  a.started, a.n, a.ended, format_duration_s(f.horizon_s)));
  if (a.rejected > 0) {
    lines.push_back(
        fmt::format("rejected at submission in {} of {} ({})", a.rejected, a.n, a.rejection));
  }
  std::string why = "why it waited: ";
  if (a.causes.empty() && a.never_waited == 0) {
    why += "no replication placed it or left it waiting";
  } else if (a.causes.empty()) {
    why += "it never waited for the scheduler (placed at its first cycle)";
  } else {
    for (std::size_t i = 0; i < a.causes.size(); ++i) {
      const auto& c = a.causes[i];
      why += fmt::format("{}{} in {} of {} ({})", i ? "; " : "", c.cause, c.count, a.n, c.reason);
    }
    if (a.never_waited > 0)
      why += fmt::format("; placed at its first cycle in {} of {}", a.never_waited, a.n);
  }
  lines.push_back(why);
  if (a.n < 10) {
    lines.push_back(
        fmt::format("only {} replication{}: the p90 is rough (-r 20 or more for a steadier one)",
                    a.n, a.n == 1 ? "" : "s"));
  }
  return lines;
}

}  // namespace t9k::analysis
