// Numbers as the console and reports print them (analysis/units.hpp).
#include <cmath>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include "analysis/units.hpp"

using namespace t9k::analysis;

TEST_CASE("units: durations in the unit that fits, counts with separators, percentages",
          "[units]") {
  struct Row {
    double seconds;
    const char* text;
  };
  for (const Row r :
       {Row{0, "0 s"}, Row{42, "42 s"}, Row{59.4, "59.4 s"}, Row{90, "1.5 min"},
        Row{3599, "60 min"}, Row{3600, "1 h"}, Row{5400, "1.5 h"}, Row{100000, "27.8 h"},
        Row{172800, "2 d"}, Row{604800, "7 d"}, Row{-90, "-1.5 min"}}) {
    INFO(r.seconds);
    CHECK(format_duration_s(r.seconds) == r.text);
  }
  CHECK(format_duration_s(std::numeric_limits<double>::quiet_NaN()) == "–");
  CHECK(format_count(0) == "0");
  CHECK(format_count(999) == "999");
  CHECK(format_count(1000) == "1,000");
  CHECK(format_count(1234567) == "1,234,567");
  CHECK(format_count(-1234) == "-1,234");
  CHECK(format_count(2.5) == "2.5");
  CHECK(format_percent(0.4123) == "41.2 %");
  CHECK(format_percent(1) == "100.0 %");
}
