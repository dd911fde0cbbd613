#include "analysis/intervals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analysis/units.hpp"

namespace t9k::analysis {

MetricRange metric_range(std::string_view metric) {
  const auto slash = metric.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? metric : metric.substr(slash + 1);
  const bool share = base.starts_with("utilization") || base.starts_with("steady_utilization") ||
                     base == "goodput" || base == "steady_fairness_jain";
  return {0, share ? 1.0 : std::numeric_limits<double>::infinity()};
}

double interval_low(std::string_view metric, const Interval& iv) {
  if (!iv.has_interval()) return iv.mean;
  return std::max(metric_range(metric).low, iv.lower());
}

double interval_high(std::string_view metric, const Interval& iv) {
  if (!iv.has_interval()) return iv.mean;
  return std::min(metric_range(metric).high, iv.upper());
}

namespace {

// A half-width of rounding noise around an exact value reads as 0.
double shown_half_width(const Interval& iv) {
  return iv.half_width < 1e-9 * std::max(1.0, std::fabs(iv.mean)) ? 0.0 : iv.half_width;
}

}  // namespace

std::string plus_minus_text(const Interval& iv, const std::function<std::string(double)>& value,
                            std::string_view label) {
  if (!iv.has_interval()) return value(iv.mean);
  const double hw = shown_half_width(iv);
  return label.empty() ? fmt::format("{} ± {}", value(iv.mean), value(hw))
                       : fmt::format("{} ± {} ({})", value(iv.mean), value(hw), label);
}

std::string interval_text(std::string_view metric, const Interval& iv,
                          const std::function<std::string(double)>& value, std::string_view label) {
  if (!iv.has_interval()) return value(iv.mean);
  const double hw = shown_half_width(iv);
  const MetricRange r = metric_range(metric);
  if (iv.mean - hw >= r.low && iv.mean + hw <= r.high) return plus_minus_text(iv, value, label);
  return fmt::format("{} ({}{}{} to {})", value(iv.mean), label, label.empty() ? "" : " ",
                     value(std::max(r.low, iv.mean - hw)), value(std::min(r.high, iv.mean + hw)));
}

std::string metric_interval_text(std::string_view metric, const Interval& iv,
                                 std::string_view label) {
  const double hw = iv.has_interval() ? shown_half_width(iv) : 0.0;
  return interval_text(
      metric, iv, [&](double v) { return format_metric(metric, v, hw); }, label);
}

std::string metric_difference_text(std::string_view metric, const Interval& d,
                                   std::string_view label) {
  const double hw = d.has_interval() ? shown_half_width(d) : 0.0;
  return plus_minus_text(
      d, [&](double v) { return format_metric(metric, v, hw); }, label);
}

}  // namespace t9k::analysis
