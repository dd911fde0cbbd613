#include "analysis/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace t9k::analysis {

namespace {
// Three significant digits without trailing zeros: 3.50 -> "3.5", 120.0 -> "120".
std::string three_digits(double v) {
  std::string s = fmt::format("{:.3g}", v);
  if (s.find('e') != std::string::npos) s = fmt::format("{:.0f}", v);
  return s;
}
}  // namespace

std::string format_duration_s(double s) {
  if (!std::isfinite(s)) return "–";
  const double a = std::fabs(s);
  if (a < 60) return three_digits(s) + " s";
  if (a < 3600) return three_digits(s / 60) + " min";
  if (a < 2 * 86400) return three_digits(s / 3600) + " h";
  return three_digits(s / 86400) + " d";
}

std::string format_bytes(double b) {
  if (!std::isfinite(b)) return "–";
  if (std::fabs(b) < 1000) return fmt::format("{} B", static_cast<std::int64_t>(b));
  if (std::fabs(b) < 1e6) return three_digits(b / 1e3) + " kB";
  if (std::fabs(b) < 1e9) return three_digits(b / 1e6) + " MB";
  return three_digits(b / 1e9) + " GB";
}

std::string format_count(double v) {
  if (!std::isfinite(v)) return "–";
  if (v != std::floor(v) || std::fabs(v) >= 9e15) return fmt::format("{:.3g}", v);
  const auto n = static_cast<std::int64_t>(v);
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_percent(double share) {
  if (!std::isfinite(share)) return "–";
  return fmt::format("{:.1f} %", 100 * share);
}

std::string format_number(double v, double half_width) {
  if (!std::isfinite(v)) return "–";
  int decimals = 0;
  if (half_width > 0 && std::isfinite(half_width)) {
    // The position of the half-width's second significant digit.
    const int e = static_cast<int>(std::floor(std::log10(half_width))) - 1;
    if (e > 0) {
      const double q = std::pow(10.0, e);
      v = std::round(v / q) * q;
    }
    decimals = std::max(0, -e);
  } else if (v != std::floor(v) && std::fabs(v) < 1000) {
    const int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    decimals = std::max(0, 3 - e);  // four significant digits
  }
  decimals = std::min(decimals, 6);  // below a millionth a reader sees 0
  if (decimals == 0) return format_count(std::round(v));
  std::string s = fmt::format("{:.{}f}", v, decimals);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string format_metric(std::string_view metric, double v, double half_width) {
  const auto slash = metric.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? metric : metric.substr(slash + 1);
  if (base.ends_with("_s")) return format_duration_s(v);
  if (base.ends_with("_kwh")) return format_number(v, half_width) + " kWh";
  if (base.starts_with("utilization") || base.starts_with("steady_utilization") ||
      base == "goodput" || base.starts_with("quota_share"))
    return format_percent(v);
  return format_number(v, half_width);
}

}  // namespace t9k::analysis
