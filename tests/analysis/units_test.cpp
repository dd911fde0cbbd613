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

// Issue 48: no e-notation and no noise digits where people read. Without an interval four
// significant digits; with one, the half-width's second significant digit decides.
TEST_CASE("units: plain numbers without e-notation, to the digits their interval supports",
          "[units]") {
  struct Row {
    double v;
    double half_width;
    const char* text;
  };
  for (const Row r : {
           Row{0, 0, "0"},
           Row{3, 0, "3"},
           Row{97740.5, 0, "97,741"},  // was 9.774e+04
           Row{1234.5678, 0, "1,235"},
           Row{0.8299123, 0, "0.8299"},
           Row{0.0005774, 0, "0.000577"},  // six decimals at most
           Row{0.00000001, 0, "0"},        // below a millionth
           Row{-2.5, 0, "-2.5"},
           Row{0.8299, 0.03643, "0.83"},  // ± 0.036
           Row{0.03643, 0.03643, "0.036"},
           Row{0.7074, 0.1411, "0.71"},
           Row{0.01125, 0.0243, "0.011"},
           Row{509.6, 579, "510"},  // rounded to tens
           Row{1088, 579, "1,090"},
           Row{3677.6, 86.1, "3,678"},
           Row{86.1, 86.1, "86"},
           Row{-0.0004, 0.03, "0"},
       }) {
    INFO(r.v << " ± " << r.half_width);
    CHECK(format_number(r.v, r.half_width) == r.text);
    CHECK(format_number(r.v, r.half_width).find('e') == std::string::npos);
  }
  CHECK(format_number(std::numeric_limits<double>::infinity()) == "–");
  // In the metric's unit: durations and shares keep theirs; other metrics are plain numbers.
  CHECK(format_metric("queue/production/wait_p90_s", 97740) == "27.1 h");
  CHECK(format_metric("utilization_allocated", 0.767) == "76.7 %");
  CHECK(format_metric("steady_fairness_jain", 0.8299, 0.03643) == "0.83");
  CHECK(format_metric("jobs_succeeded", 3677.6, 86.1) == "3,678");
}
