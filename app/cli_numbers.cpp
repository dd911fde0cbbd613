#include "app/cli_numbers.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace t9k::app {

std::string printable(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi) {
  const std::string range = fmt::format("{}..{}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        const bool digits = !s.empty() && std::all_of(s.begin(), s.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
        if (!digits)
          return fmt::format("expected a whole number in {} (decimal digits), got '{}'", range,
                             printable(s));
        errno = 0;
        const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
        if (errno == ERANGE || v < lo || v > hi)
          return fmt::format("expected a whole number in {}, got {}", range, printable(s));
        s = std::to_string(v);  // "010" is ten (CLI11 would read it as octal)
        return {};
      },
      range);
}

CLI::Validator decimal_number(double lo, double hi, bool lo_open) {
  const std::string range = fmt::format("{}{}, {}]", lo_open ? "(" : "[", lo, hi);
  return CLI::Validator(
      [lo, hi, lo_open, range](std::string& s) -> std::string {
        // Digits with at most one point, then an optional exponent: strtod alone would also take
        // "nan", "inf", hex floats and leading spaces.
        const auto mantissa_end = s.find_first_of("eE");
        const std::string mantissa = s.substr(0, mantissa_end);
        const bool mantissa_ok =
            !mantissa.empty() && std::count(mantissa.begin(), mantissa.end(), '.') <= 1 &&
            std::any_of(mantissa.begin(), mantissa.end(),
                        [](char c) { return c >= '0' && c <= '9'; }) &&
            std::all_of(mantissa.begin(), mantissa.end(),
                        [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
        bool exponent_ok = true;
        if (mantissa_end != std::string::npos) {
          std::string e = s.substr(mantissa_end + 1);
          if (!e.empty() && (e[0] == '-' || e[0] == '+')) e.erase(0, 1);
          exponent_ok = !e.empty() && e.size() <= 4 && std::all_of(e.begin(), e.end(), [](char c) {
            return c >= '0' && c <= '9';
          });
        }
        if (!mantissa_ok || !exponent_ok)
          return fmt::format("expected a number in {}, got '{}'", range, printable(s));
        const double v = std::strtod(s.c_str(), nullptr);
        if (!std::isfinite(v) || v > hi || (lo_open ? v <= lo : v < lo))
          return fmt::format("expected a number in {}, got {}", range, printable(s));
        return {};
      },
      range);
}

}  // namespace t9k::app
