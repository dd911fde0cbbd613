// Simulation time: integer microseconds on a simulation clock (design.md "Time, order,
// randomness"). Never double, never the wall clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace t9k::kernel {

using SimDuration = std::chrono::duration<std::int64_t, std::micro>;

// A clock with no now(): time only advances when the event queue dispatches.
struct SimClock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = SimDuration;
  using time_point = std::chrono::time_point<SimClock>;
  static constexpr bool is_steady = true;
};

using SimTime = SimClock::time_point;

inline constexpr SimTime kTimeZero{};
inline constexpr SimTime kTimeMax{SimDuration{INT64_MAX}};

// Calendar units in microseconds, for arithmetic on raw counts (trace times, Unix times).
inline constexpr std::int64_t kMicrosPerHour = 3'600'000'000;
inline constexpr std::int64_t kMicrosPerDay = 24 * kMicrosPerHour;

constexpr SimDuration microseconds(std::int64_t n) { return SimDuration{n}; }
constexpr SimDuration milliseconds(std::int64_t n) { return SimDuration{n * 1000}; }
constexpr SimDuration seconds(std::int64_t n) { return SimDuration{n * 1000000}; }
constexpr SimDuration minutes(std::int64_t n) { return seconds(n * 60); }
constexpr SimDuration hours(std::int64_t n) { return seconds(n * 3600); }
constexpr SimDuration days(std::int64_t n) { return seconds(n * 86400); }
constexpr SimTime at(SimDuration since_zero) { return SimTime{since_zero}; }

// Thrown for a malformed duration; the message says what was found and what is allowed.
class DurationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Kubernetes/Go-style duration: one or more <number><unit> terms, e.g. "90s", "2h45m", "1.5h",
// "500ms", "1d", "1w". Units: y (365 d), w, d, h, m, s, ms, us (or µs). A number may carry a
// decimal fraction; the result must be a whole number of microseconds. "0" alone is allowed.
// Negative durations are rejected: nothing in a scenario can last less than nothing.
SimDuration parse_duration(std::string_view text);

// The Queue spec.maxDuration grammar of spec §8.2, exactly:
// ^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$
// Integer terms only, each unit at most once, in that order. (An empty string matches the
// upstream regex; we reject it, since "unset" is expressed by omitting the field.)
SimDuration parse_max_duration(std::string_view text);

// Canonical short form: largest units first, zero terms omitted ("2h45m", "1d", "500ms",
// "1m30s500us", "0s"). Days are the largest unit printed. parse_duration(format_duration(d)) == d.
std::string format_duration(SimDuration d);

// Seconds since time zero with microsecond precision, e.g. "3600.000250" (for CSV outputs).
std::string format_seconds(SimTime t);
std::string format_seconds(SimDuration d);
// The same text appended to `out` (jobs.csv writes a line per job without a string per field).
void append_seconds(fmt::memory_buffer& out, SimDuration d);
// "<whole>.<fraction>", the fraction zero-padded to `digits` (0 to 9; no point for 0), with a
// leading '-' when `negative`: append_seconds', and analysis/decimal's fixed notation. Built in
// place and appended once (each append is a call into fmt).
void append_decimal(fmt::memory_buffer& out, bool negative, std::uint64_t whole,
                    std::uint64_t fraction, int digits);

}  // namespace t9k::kernel
