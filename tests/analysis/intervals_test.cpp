// Intervals as people read them (analysis/intervals.hpp): clipped to the metric's range (issue 47:
// "75.0 % ± 161.5 %", "47.3 min ± 3.34 h"), a plain ± while they fit, never clipped for
// differences.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "analysis/intervals.hpp"
#include "analysis/units.hpp"

using namespace t9k::analysis;

TEST_CASE("intervals: each metric's range, and its interval's text clipped to it", "[intervals]") {
  CHECK(metric_range("utilization_allocated").high == 1);
  CHECK(metric_range("queue/a/steady_utilization_productive").high == 1);
  CHECK(metric_range("goodput").high == 1);
  CHECK(metric_range("steady_fairness_jain").high == 1);
  CHECK(std::isinf(metric_range("queue/a/wait_p90_s").high));
  CHECK(std::isinf(metric_range("queue/a/quota_share_used").high));  // borrowing can exceed it
  CHECK(metric_range("jobs_failed").low == 0);

  const auto seconds = [](double v) { return format_duration_s(v); };
  const auto percent = [](double v) { return format_percent(v); };
  struct Row {
    const char* metric;
    std::vector<double> values;
    std::function<std::string(double)> value;
    const char* label;
    std::string text;
  };
  const auto iv = [](std::vector<double> v) { return mean_interval(v); };
  const std::vector<Row> rows = {
      // Inside the range: mean ± half-width.
      {"wait_p90_s", {600, 660, 720}, seconds, "", "11 min ± 2.48 min"},
      {"wait_p90_s", {600, 660, 720}, seconds, "95 % CI", "11 min ± 2.48 min (95 % CI)"},
      // Below 0: the low end is 0.
      {"queue/production/wait_p90_s", {0, 0, 7200}, seconds, "", "40 min (0 s to 3.54 h)"},
      {"queue/production/wait_p90_s",
       {0, 0, 7200},
       seconds,
       "95 % CI",
       "40 min (95 % CI 0 s to 3.54 h)"},
      // Above 100 %: the high end is 100 %.
      {"utilization_allocated", {0.5, 1, 1}, percent, "", "83.3 % (11.6 % to 100.0 %)"},
      // One value: no interval.
      {"utilization_allocated", {0.5}, percent, "", "50.0 %"},
  };
  for (const auto& r : rows) {
    INFO(r.metric << " " << r.text);
    CHECK(interval_text(r.metric, iv(r.values), r.value, r.label) == r.text);
  }
  // Differences are not metric values: negative ends stay.
  CHECK(plus_minus_text(iv({-60, -120, -180}), seconds) == "-2 min ± 2.48 min");
  // Clipped ends for sweep.csv and the charts.
  const auto skew = iv({0, 0, 7200});
  CHECK(interval_low("wait_p90_s", skew) == 0);
  CHECK(interval_high("wait_p90_s", skew) == Approx(skew.upper()));
}
