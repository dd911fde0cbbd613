#include "kernel/time.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "kernel/hash.hpp"

namespace t9k::kernel {
namespace {

constexpr std::int64_t kUs = 1;
constexpr std::int64_t kMs = 1000 * kUs;
constexpr std::int64_t kS = 1000 * kMs;
constexpr std::int64_t kM = 60 * kS;
constexpr std::int64_t kH = 60 * kM;
constexpr std::int64_t kD = 24 * kH;
constexpr std::int64_t kW = 7 * kD;
constexpr std::int64_t kY = 365 * kD;

struct Unit {
  std::string_view name;
  std::int64_t micros;
};

// Longest names first so "ms" is not read as "m" followed by "s".
constexpr std::array<Unit, 9> kUnits{{{"ms", kMs},
                                      {"us", kUs},
                                      {"\xC2\xB5s", kUs},  // µs
                                      {"y", kY},
                                      {"w", kW},
                                      {"d", kD},
                                      {"h", kH},
                                      {"m", kM},
                                      {"s", kS}}};

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw DurationError(
      fmt::format("invalid duration \"{}\": {}; expected terms like 90s, 2h45m, 1.5h, 500ms, 1d "
                  "(units y, w, d, h, m, s, ms, us)",
                  text, why));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view text) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail(text, "too large");
  return r;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view text) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail(text, "too large");
  return r;
}

}  // namespace

SimDuration parse_duration(std::string_view text) {
  if (text.empty()) fail(text, "empty");
  if (text == "0") return SimDuration{0};
  if (text.front() == '-') fail(text, "negative durations are not allowed");
  if (text.front() == '+') text.remove_prefix(1);
  std::int64_t total = 0;
  std::size_t i = 0;
  const std::string_view original = text;
  while (i < text.size()) {
    // Integer part.
    std::int64_t whole = 0;
    std::size_t digits = 0;
    while (i < text.size() && is_digit(text[i])) {
      whole = checked_add(checked_mul(whole, 10, original), text[i] - '0', original);
      ++i;
      ++digits;
    }
    // Fraction part, kept as an exact rational frac_num / frac_den.
    std::int64_t frac_num = 0;
    std::int64_t frac_den = 1;
    if (i < text.size() && text[i] == '.') {
      ++i;
      std::size_t frac_digits = 0;
      while (i < text.size() && is_digit(text[i])) {
        if (frac_digits >= 15) fail(original, "too many fraction digits");
        frac_num = frac_num * 10 + (text[i] - '0');
        frac_den *= 10;
        ++i;
        ++frac_digits;
      }
      if (frac_digits == 0 && digits == 0) fail(original, "a number needs digits");
    } else if (digits == 0) {
      fail(original, fmt::format("expected a number at position {}", i));
    }
    // Unit.
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(i, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) {
      if (i >= text.size()) fail(original, "missing unit after the last number");
      fail(original, fmt::format("unknown unit at position {}", i));
    }
    i += unit->name.size();
    std::int64_t term = checked_mul(whole, unit->micros, original);
    if (frac_num != 0) {
      // frac_num * micros / frac_den must be exact; compute without overflow via 128-bit.
      const Int128 scaled = static_cast<Int128>(frac_num) * unit->micros;
      if (scaled % frac_den != 0) fail(original, "finer than one microsecond");
      term = checked_add(term, static_cast<std::int64_t>(scaled / frac_den), original);
    }
    total = checked_add(total, term, original);
  }
  return SimDuration{total};
}

SimDuration parse_max_duration(std::string_view text) {
  if (text.empty()) fail(text, "empty (omit the field for no limit)");
  if (text == "0") return SimDuration{0};
  // Units in the only order the regex allows.
  static constexpr std::array<Unit, 7> kOrder{
      {{"y", kY}, {"w", kW}, {"d", kD}, {"h", kH}, {"m", kM}, {"s", kS}, {"ms", kMs}}};
  std::size_t next_unit = 0;
  std::size_t i = 0;
  std::int64_t total = 0;
  while (i < text.size()) {
    std::int64_t n = 0;
    std::size_t digits = 0;
    while (i < text.size() && is_digit(text[i])) {
      n = checked_add(checked_mul(n, 10, text), text[i] - '0', text);
      ++i;
      ++digits;
    }
    if (digits == 0) {
      throw DurationError(fmt::format(
          "invalid maxDuration \"{}\": expected digits at position {}; the grammar is "
          "[<n>y][<n>w][<n>d][<n>h][<n>m][<n>s][<n>ms] or 0 (whole numbers, units in this order)",
          text, i));
    }
    std::size_t k = next_unit;
    bool matched = false;
    for (; k < kOrder.size(); ++k) {
      const auto& u = kOrder[k];
      // "m" must not swallow the "m" of "ms".
      if (u.name == "m" && text.substr(i, 2) == "ms") continue;
      if (text.substr(i, u.name.size()) == u.name) {
        matched = true;
        break;
      }
    }
    if (!matched) {
      throw DurationError(fmt::format(
          "invalid maxDuration \"{}\": unit at position {} is unknown or out of order; the "
          "grammar is [<n>y][<n>w][<n>d][<n>h][<n>m][<n>s][<n>ms] or 0",
          text, i));
    }
    total = checked_add(total, checked_mul(n, kOrder[k].micros, text), text);
    i += kOrder[k].name.size();
    next_unit = k + 1;
  }
  return SimDuration{total};
}

std::string format_duration(SimDuration d) {
  std::int64_t us = d.count();
  if (us == 0) return "0s";
  std::string out;
  if (us < 0) {
    out.push_back('-');
    us = -us;  // INT64_MIN cannot be produced by parse_duration.
  }
  static constexpr std::array<Unit, 6> kPrint{
      {{"d", kD}, {"h", kH}, {"m", kM}, {"s", kS}, {"ms", kMs}, {"us", kUs}}};
  for (const Unit& u : kPrint) {
    if (us >= u.micros) {
      out += fmt::format("{}{}", us / u.micros, u.name);
      us %= u.micros;
    }
  }
  return out;
}

void append_seconds(fmt::memory_buffer& out, SimDuration d) {
  const std::int64_t us = d.count();
  const bool neg = us < 0;
  const std::uint64_t mag =
      neg ? static_cast<std::uint64_t>(-(us + 1)) + 1u : static_cast<std::uint64_t>(us);
  // "{}.{:06}" of the seconds and microseconds, by hand: jobs.csv writes six a row.
  append_decimal(out, neg, mag / 1000000u, mag % 1000000u, 6);
}

void append_decimal(fmt::memory_buffer& out, bool negative, std::uint64_t whole,
                    std::uint64_t fraction, int digits) {
  const fmt::format_int w(whole);
  char text[32];  // a sign, 20 digits, the point and 9
  char* end = text;
  if (negative) *end++ = '-';
  end = std::copy(w.data(), w.data() + w.size(), end);
  if (digits > 0) {
    *end++ = '.';
    for (int i = digits - 1; i >= 0; --i) {
      end[i] = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    end += digits;
  }
  out.append(text, end);
}

std::string format_seconds(SimDuration d) {
  fmt::memory_buffer out;
  append_seconds(out, d);
  return fmt::to_string(out);
}

std::string format_seconds(SimTime t) { return format_seconds(t.time_since_epoch()); }

}  // namespace t9k::kernel
