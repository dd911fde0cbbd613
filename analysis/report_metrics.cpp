// The report's metric names, labels and number formats (docs/reports.md).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "analysis/detail/report.hpp"
#include "analysis/intervals.hpp"
#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report_assets.hpp"
#include "analysis/statistics.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace detail {

std::string label_of(const std::string& metric) {
  for (const auto& m : kMetrics) {
    if (metric == m.name) return m.label;
  }
  if (metric.starts_with("gpu_hours_down_"))
    return "GPU-hours of capacity down: " + metric.substr(15);
  return metric;
}

// The metrics of one group value ("" group: the cluster-wide ones), without their prefix, in
// headline order.
std::vector<std::string> ordered_metrics(const ReportInput& in, const std::string& prefix) {
  std::set<std::string> all;
  for (const auto& v : in.variants) {
    for (const auto& [k, _] : v.replications.metrics) {
      if (prefix.empty() ? k.find('/') == std::string::npos : k.starts_with(prefix))
        all.insert(k.substr(prefix.size()));
    }
  }
  std::vector<std::string> out;
  for (const auto& m : kMetrics) {
    if (all.erase(m.name)) out.emplace_back(m.name);
  }
  out.insert(out.end(), all.begin(), all.end());
  return out;
}

std::string num(double v) { return format_number(v); }

// A metric's value and its interval, clipped to the metric's range (analysis/intervals.hpp).
std::string metric_value(const std::string& metric, const Interval& i) {
  return metric_interval_text(metric, i);
}

std::string difference_value(const std::string& metric, const Interval& d) {
  return metric_difference_text(metric, d);
}

std::string relative_change(const Interval& d, double base_mean) {
  const double scale = 100 / std::fabs(base_mean);
  const double hw = d.has_interval() ? d.half_width * scale : 0.0;
  const double rel = d.mean * scale;
  // An exact difference (no interval) keeps one decimal below 100 %, as percentages do.
  const std::string text = hw > 0                  ? format_number(rel, hw)
                           : std::fabs(rel) >= 100 ? format_count(std::round(rel))
                                                   : fmt::format("{:.1f}", rel);
  return (rel > 0 ? "+" : "") + text + " %";
}

double metric_mean(const ReportVariant& v, const std::string& name) {
  const auto it = v.replications.metrics.find(name);
  return it == v.replications.metrics.end() ? 0.0 : it->second.interval.mean;
}

std::string queue_label(std::string_view q) {
  return q.empty() ? std::string("(default scheduler)") : std::string(q);
}

}  // namespace detail

}  // namespace t9k::analysis
