// append_fixed and append_general write what fmt's "{:.Nf}" and "{:.Ng}" write, to the byte: the
// CSV files must not change when their writer does (scripts/same-outputs).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "analysis/decimal.hpp"

using t9k::analysis::append_fixed;
using t9k::analysis::append_general;

namespace {

std::string fixed(double x, int decimals) {
  fmt::memory_buffer b;
  append_fixed(b, x, decimals);
  return fmt::to_string(b);
}

std::string general(double x, int digits) {
  fmt::memory_buffer b;
  append_general(b, x, digits);
  return fmt::to_string(b);
}

void check_both(double x) {
  INFO(fmt::format("{:.17g}", x));
  for (int d = 0; d <= 9; ++d) REQUIRE(fixed(x, d) == fmt::format("{:.{}f}", x, d));
  for (int g : {1, 3, 6, 17}) REQUIRE(general(x, g) == fmt::format("{:.{}g}", x, g));
}

}  // namespace

TEST_CASE("fixed notation: ties to even, carries, signs and the edges of the integer path",
          "[analysis][decimal]") {
  CHECK(fixed(0.0078125, 6) == "0.007812");  // 2^-7: a tie at the sixth decimal, to even
  CHECK(fixed(0.0234375, 6) == "0.023438");
  CHECK(fixed(2.5, 0) == "2");
  CHECK(fixed(3.5, 0) == "4");
  CHECK(fixed(0.9999996, 6) == "1.000000");  // the carry reaches the whole part
  CHECK(fixed(-1e-9, 6) == "-0.000000");     // as printf: the sign of what rounds to zero
  CHECK(fixed(-0.0, 3) == "-0.000");
  CHECK(fixed(0.0, 4) == "0.0000");
  CHECK(fixed(123.456, 3) == "123.456");
  for (double x :
       {0.5, 1.0, 1e-300, 5e-324, 9007199254740993.0, 9223372036854775807.0, 9.3e18, 1.8e19, 1e21,
        1e300, std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::nan("")}) {
    check_both(x);
    check_both(-x);
  }
}

TEST_CASE("fixed and general notation equal fmt's on random doubles", "[analysis][decimal]") {
  std::mt19937_64 rng(20261207);
  for (int i = 0; i < 60000; ++i) {
    double x = 0;
    switch (i % 4) {
      case 0: {  // any bit pattern
        const std::uint64_t bits = rng();
        std::memcpy(&x, &bits, sizeof x);
        break;
      }
      case 1:  // GPU-hours as jobs.csv writes them: milli-GPU × µs over 3.6e12
        x = static_cast<double>(rng() % 100000000000000ULL) / 3.6e12;
        break;
      case 2:  // GPUs averaged over a period (occupancy.csv, timeseries.csv)
        x = static_cast<double>(rng() % 10000000000ULL) /
            static_cast<double>(1 + rng() % 3600000000ULL) / 1000.0;
        break;
      default:  // halves, quarters and eighths at every scale: ties
        x = std::ldexp(static_cast<double>(rng() % 4096), -static_cast<int>(rng() % 40));
        break;
    }
    check_both(x);
  }
}

TEST_CASE("fixed and general notation refuse precisions they do not serve", "[analysis][decimal]") {
  fmt::memory_buffer b;
  CHECK_THROWS_AS(append_fixed(b, 1.0, 10), std::logic_error);
  CHECK_THROWS_AS(append_fixed(b, 1.0, -1), std::logic_error);
  CHECK_THROWS_AS(append_general(b, 1.0, 0), std::logic_error);
}
