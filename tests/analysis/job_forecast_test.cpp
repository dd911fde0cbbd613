// `t9ksim forecast --job`'s answer (analysis/job_forecast.hpp, docs/forecast.md "When will my job
// start?"): percentiles over replications where a replication without a start counts as later
// than any, rejections said apart, why it waited counted.
#include <catch2/catch.hpp>

#include "analysis/job_forecast.hpp"

using namespace t9k::analysis;

namespace {

JobForecastRow row(std::uint64_t rep, std::optional<double> start, std::optional<double> end,
                   const std::string& phase, const std::string& cause = "") {
  JobForecastRow r;
  r.replication = rep;
  r.start_s = start;
  r.end_s = end;
  r.phase = phase;
  r.pending_cause = cause;
  r.pending_reason = cause.empty() ? "" : cause + " reason " + std::to_string(rep);
  return r;
}

JobForecast forecast(std::vector<JobForecastRow> rows) {
  JobForecast f;
  f.job = "demo/j";
  f.kind = "GenericJob";
  f.queue = "a";
  f.gpus = 8;
  f.time_zero_unix_s = 1714640400;  // 2024-05-02T09:00:00Z
  f.horizon_s = 86400;
  f.rows = std::move(rows);
  return f;
}

}  // namespace

TEST_CASE("job forecast: percentiles over replications, later than any without a start",
          "[job_forecast]") {
  // Starts at 0, 100, 200, 300 s and one replication where it never started.
  const auto f = forecast({row(0, 0, 3600, "Succeeded"), row(1, 100, 3700, "Succeeded", "Quota"),
                           row(2, 200, 3800, "Succeeded", "Quota"),
                           row(3, 300, std::nullopt, "Running", "Capacity"),
                           row(4, std::nullopt, std::nullopt, "Pending", "Quota")});
  const auto a = answer_job_forecast(f);
  CHECK(a.n == 5);
  CHECK(a.started == 4);
  CHECK(a.ended == 3);
  // Sorted starts 0, 100, 200, 300, +inf: p50 at rank 2 = 200; p90 at rank 3.6 needs the +inf.
  REQUIRE(a.start_p50);
  CHECK(*a.start_p50 == Approx(200));
  CHECK_FALSE(a.start_p90);
  // Ends 3600, 3700, 3800, +inf, +inf: p50 3800.
  REQUIRE(a.end_p50);
  CHECK(*a.end_p50 == Approx(3800));
  REQUIRE(a.causes.size() == 2);
  CHECK(a.causes[0].cause == "Quota");
  CHECK(a.causes[0].count == 3);
  CHECK(a.causes[0].reason == "Quota reason 1");
  CHECK(a.never_waited == 1);
  const auto lines = job_forecast_lines(f, a);
  CHECK(lines[0] ==
        "demo/j (GenericJob, queue a, 8 GPUs) submitted at 2024-05-02T09:00:00Z, over 5 "
        "replications:");
  CHECK(lines[1] == "starts: p50 2024-05-02T09:03:20Z (in 3.33 min), p90 after the 24 h horizon");
  CHECK(lines[4] ==
        "why it waited: Quota in 3 of 5 (Quota reason 1); Capacity in 1 of 5 (Capacity reason "
        "3); placed at its first cycle in 1 of 5");
  CHECK(lines.back() == "only 5 replications: the p90 is rough (-r 20 or more for a steadier one)");
}

TEST_CASE("job forecast: a rejected job is said as rejected, not as placed", "[job_forecast]") {
  auto r0 = row(0, std::nullopt, 0, "Rejected");
  r0.reason = "Rejected: queue a is closed";
  auto r1 = r0;
  r1.replication = 1;
  const auto f = forecast({r0, r1});
  const auto a = answer_job_forecast(f);
  CHECK(a.rejected == 2);
  CHECK(a.never_waited == 0);
  CHECK(a.ended == 0);  // an end without a start is not a finished run
  const auto lines = job_forecast_lines(f, a);
  CHECK(lines[4] == "rejected at submission in 2 of 2 (Rejected: queue a is closed)");
  CHECK(lines[5] == "why it waited: no replication placed it or left it waiting");
  // job-forecast.csv round trip.
  const auto back = parse_job_forecast(parse_csv(job_forecast_csv(f), "job-forecast.csv"));
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[1].reason == "Rejected: queue a is closed");
  CHECK(back.time_zero_unix_s == f.time_zero_unix_s);
  CHECK(format_utc(0) == "1970-01-01T00:00:00Z");
}
