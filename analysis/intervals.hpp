// How a metric's 95 % interval reads (issue 47: "75.0 % ± 161.5 %" is not a statement about a
// utilisation): the range a summary metric can take, and its interval clipped to that range.
// Each caller keeps its own way of writing one value; the interval's shape is decided here once.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "analysis/statistics.hpp"

namespace t9k::analysis {

// The values a summary metric (docs/outputs.md; the name may carry its GROUP/VALUE/ prefix) can
// take: [0, 1] for utilisations, goodput and Jain's index, [0, ∞) for every other one (counts,
// durations, GPU-hours, slowdowns, shares of a quota).
struct MetricRange {
  double low = 0;
  double high = 0;  // +∞ when unbounded
};
MetricRange metric_range(std::string_view metric);

// The interval's ends within the metric's range (mean ± half-width without an interval).
double interval_low(std::string_view metric, const Interval& iv);
double interval_high(std::string_view metric, const Interval& iv);

// "M ± H" when mean ± half-width lies within the metric's range, else "M (L to U)" with the ends
// clipped to it; "M" without an interval. `value` writes one value in the metric's unit; `label`
// (e.g. "95 % CI") is added as "M ± H (label)" or "M (label L to U)".
std::string interval_text(std::string_view metric, const Interval& iv,
                          const std::function<std::string(double)>& value,
                          std::string_view label = {});
// "M ± H", never clipped: for a difference between metrics, which may be negative.
std::string plus_minus_text(const Interval& iv, const std::function<std::string(double)>& value,
                            std::string_view label = {});

// The two above with every value in the metric's unit (format_metric, plain numbers to the
// half-width's second significant digit): what the console, the reports and `size` print.
std::string metric_interval_text(std::string_view metric, const Interval& iv,
                                 std::string_view label = {});
std::string metric_difference_text(std::string_view metric, const Interval& d,
                                   std::string_view label = {});

}  // namespace t9k::analysis
