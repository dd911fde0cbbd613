#include "analysis/units.hpp"

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

}  // namespace t9k::analysis
