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

std::string num(double v) {
  if (!std::isfinite(v)) return "–";
  if (v == std::floor(v) && std::fabs(v) < 1e9) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

namespace {

// One value of a metric in the unit a reader expects: durations in s/min/h/d, shares as
// percentages, counts with thousands separators.
std::string in_unit(const std::string& metric, double v) {
  const std::string base =
      metric.substr(metric.rfind('/') == std::string::npos ? 0 : metric.rfind('/') + 1);
  const bool duration = base.ends_with("_s");
  const bool share = base.starts_with("utilization") || base.starts_with("steady_utilization") ||
                     base == "goodput" || base.starts_with("quota_share");
  if (!std::isfinite(v)) return "–";
  if (duration) return format_duration_s(v);
  if (share) return format_percent(v);
  if (v == std::floor(v) && std::fabs(v) < 1e15) return format_count(v);
  return std::fabs(v) >= 1000 ? format_count(std::round(v)) : fmt::format("{:.4g}", v);
}

}  // namespace

// A metric's value and its interval, clipped to the metric's range (analysis/intervals.hpp).
std::string metric_value(const std::string& metric, const Interval& i) {
  return interval_text(metric, i, [&](double v) { return in_unit(metric, v); });
}

std::string difference_value(const std::string& metric, const Interval& d) {
  return plus_minus_text(d, [&](double v) { return in_unit(metric, v); });
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
