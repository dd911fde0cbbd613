// "When will my job start?" (`t9ksim forecast EXPORT --job JOB.yaml`, docs/forecast.md): one
// job's start and end over a forecast's replications, from each replication's jobs.csv, kept in
// job-forecast.csv (one row per replication) and answered as percentiles with why it waited.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/csv.hpp"

namespace t9k::analysis {

struct JobForecastRow {
  std::uint64_t replication = 0;
  std::optional<double> start_s;  // since time zero; unset: not running by the horizon
  std::optional<double> end_s;    // unset: not finished by the horizon
  std::string phase;              // at its end, or at the horizon
  std::string reason;             // jobs.csv reason: the rejection's, or the terminal condition's
  std::string pending_cause;      // why the scheduler last left it waiting ("" if it never did)
  std::string pending_reason;
};

struct JobForecast {
  std::string job;  // namespace/name
  std::string kind;
  std::string queue;
  double gpus = 0;
  std::int64_t time_zero_unix_s = 0;
  double horizon_s = 0;
  std::vector<JobForecastRow> rows;  // one per replication, in replication order
};

// The job's row of one replication's jobs.csv (`dir`); throws std::runtime_error naming the file
// when the file or the job's row is missing.
JobForecastRow job_forecast_row(const std::filesystem::path& dir, const std::string& job,
                                std::uint64_t replication);

// job-forecast.csv, and back (the report reads it).
std::string job_forecast_csv(const JobForecast& f);
JobForecast parse_job_forecast(const CsvTable& t);

struct JobForecastAnswer {
  std::size_t n = 0, started = 0, ended = 0;
  // Percentiles over the replications, a replication without a start (end) counting as later
  // than any: unset when the percentile falls beyond the horizon.
  std::optional<double> start_p50, start_p90, end_p50, end_p90;
  // Why it waited, most frequent first: (cause, replications, one of their reasons).
  struct Cause {
    std::string cause;
    std::size_t count = 0;
    std::string reason;
  };
  std::vector<Cause> causes;
  std::size_t never_waited = 0;  // placed at its first scheduling cycle
  std::size_t rejected = 0;      // rejected at admission (a closed queue, over its quota)
  std::string rejection;         // the first rejection's reason
};
JobForecastAnswer answer_job_forecast(const JobForecast& f);

// The answer as sentences (console lines, and the report's list items).
std::vector<std::string> job_forecast_lines(const JobForecast& f, const JobForecastAnswer& a);

// "2024-05-02T09:12:05Z".
std::string format_utc(double unix_s);

}  // namespace t9k::analysis
