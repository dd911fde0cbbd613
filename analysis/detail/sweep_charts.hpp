// The charts of a sweep or size report (analysis/report_sweep_charts.cpp): one chart per metric,
// as lines against the first parameter, or, over exactly two parameters, as heatmaps with the
// points meeting every target outlined (issue 48 item 4).
#pragma once

#include <string>
#include <vector>

#include "analysis/detail/report.hpp"
#include "analysis/goal.hpp"
#include "analysis/sweep.hpp"

namespace t9k::analysis::detail {

// The unit a chart of durations is drawn in: seconds below 2 min, minutes below 2 h, hours below
// 2 days, days beyond (format_duration_s's steps, taken by the largest value drawn).
struct DurationUnit {
  double seconds = 1;
  const char* name = "s";
};
DurationUnit duration_unit(double largest_s);

// Per point, whether its replications meet every target (all false without targets).
std::vector<bool> points_meeting(const SweepSummary& s, const std::vector<Target>& targets);

// The targets the page draws and checks: a size report's goal targets, else the sweep's.
std::vector<Target> report_targets(const SweepSummary& s);

std::vector<Chart> sweep_charts(const SweepSummary& s, const std::vector<Target>& targets);

}  // namespace t9k::analysis::detail
