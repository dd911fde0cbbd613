#include <catch2/catch.hpp>

#include "kernel/time.hpp"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

using namespace t9k::kernel;

TEST_CASE("parse_duration accepts Kubernetes-style durations", "[kernel][time]") {
  struct Row {
    const char* text;
    SimDuration expected;
  };
  const Row rows[] = {
      {"0", SimDuration{0}},
      {"90s", seconds(90)},
      {"2h45m", hours(2) + minutes(45)},
      {"1d", days(1)},
      {"500ms", milliseconds(500)},
      {"1.5h", minutes(90)},
      {"0.5s", milliseconds(500)},
      {"1w", days(7)},
      {"1y", days(365)},
      {"1h30m15s250ms", hours(1) + minutes(30) + seconds(15) + milliseconds(250)},
      {"10us", microseconds(10)},
      {"3\xC2\xB5s", microseconds(3)},
      {"1m1ms", minutes(1) + milliseconds(1)},
      {"+5m", minutes(5)},
  };
  for (const auto& r : rows) {
    INFO(r.text);
    CHECK(parse_duration(r.text) == r.expected);
  }
}

TEST_CASE("parse_duration rejects malformed durations with a clear message", "[kernel][time]") {
  const char* bad[] = {
      "", "s", "10", "10x", "-5s", "1.5", ".s", "1.0000001s", "h1", "99999999999999999999h", "1 h"};
  for (const char* text : bad) {
    INFO(text);
    CHECK_THROWS_AS(parse_duration(text), DurationError);
  }
  CHECK_THROWS_WITH(parse_duration("10x"),
                    Catch::Contains("unknown unit") && Catch::Contains("\"10x\""));
  CHECK_THROWS_WITH(parse_duration("1.0000001s"), Catch::Contains("microsecond"));
}

TEST_CASE("parse_max_duration follows the Queue maxDuration grammar (spec 8.2)", "[kernel][time]") {
  CHECK(parse_max_duration("0") == SimDuration{0});
  CHECK(parse_max_duration("2h45m") == hours(2) + minutes(45));
  CHECK(parse_max_duration("1y2w3d4h5m6s7ms") ==
        days(365) + days(14) + days(3) + hours(4) + minutes(5) + seconds(6) + milliseconds(7));
  CHECK(parse_max_duration("30m") == minutes(30));
  CHECK(parse_max_duration("100ms") == milliseconds(100));
  // Order, fractions and unknown units are not in the grammar.
  for (const char* text : {"45m2h", "1.5h", "1h1h", "5us", "", "h", "1d-2h", "2H"}) {
    INFO(text);
    CHECK_THROWS_AS(parse_max_duration(text), DurationError);
  }
  CHECK_THROWS_WITH(parse_max_duration("45m2h"), Catch::Contains("out of order"));
}

TEST_CASE("format_duration is canonical and round-trips", "[kernel][time]") {
  CHECK(format_duration(SimDuration{0}) == "0s");
  CHECK(format_duration(hours(2) + minutes(45)) == "2h45m");
  CHECK(format_duration(milliseconds(500)) == "500ms");
  CHECK(format_duration(days(1)) == "1d");
  CHECK(format_duration(minutes(1) + seconds(30) + microseconds(500)) == "1m30s500us");
  for (std::int64_t us : {1LL, 999LL, 1000LL, 61000001LL, 86400000000LL * 400 + 7}) {
    const SimDuration d{us};
    CHECK(parse_duration(format_duration(d)) == d);
  }
}

TEST_CASE("format_seconds prints microsecond precision", "[kernel][time]") {
  CHECK(format_seconds(at(seconds(3600) + microseconds(250))) == "3600.000250");
  CHECK(format_seconds(SimDuration{-1500000}) == "-1.500000");
  CHECK(format_seconds(SimTime{}) == "0.000000");
  // The extremes, and every width of the seconds, as fmt's "{}.{:06}" writes them.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  CHECK(format_seconds(SimDuration{kMax}) == "9223372036854.775807");
  CHECK(format_seconds(SimDuration{-kMax - 1}) == "-9223372036854.775808");
  CHECK(format_seconds(SimDuration{-1}) == "-0.000001");
  for (std::int64_t us = 7; us < kMax / 10; us = us * 10 + 3) {
    CHECK(format_seconds(SimDuration{us}) == fmt::format("{}.{:06}", us / 1000000, us % 1000000));
  }
}
