// Kubernetes quantities held exactly as integer milli-units (model/quantity.hpp).
#include <catch2/catch.hpp>

#include "model/quantity.hpp"

using t9k::model::Quantity;
using t9k::model::QuantityError;

TEST_CASE("quantity parses the Kubernetes grammar exactly", "[quantity]") {
  struct Row {
    const char* text;
    std::int64_t milli;
  };
  const Row rows[] = {
      {"0", 0},
      {"1", 1000},
      {"500m", 500},
      {"1.5", 1500},
      {"0.1", 100},
      {".5", 500},
      {"+2", 2000},
      {"-3", -3000},
      {"4Gi", 4LL * (1LL << 30) * 1000},
      {"512Mi", 512LL * (1LL << 20) * 1000},
      {"1Ki", 1024000},
      {"10G", 10'000'000'000'000LL},
      {"2k", 2'000'000},
      {"1M", 1'000'000'000},
      {"1e3", 1'000'000},
      {"1E3", 1'000'000},
      {"2e-3", 2},
      {"100u", 1},  // 0.0001 rounds up to 1m, as MilliValue() does
      {"1n", 1},
      {"0.0001", 1},
      {"1.0005", 1001},
      {"1Ti", 1099511627776LL * 1000},
      {"3Pi", 3LL * (1LL << 50) * 1000},
      {"1P", 1'000'000'000'000'000'000LL},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    CHECK(Quantity::parse(row.text).milli() == row.milli);
  }
}

TEST_CASE("quantity rejects malformed text with a message naming it", "[quantity]") {
  const char* bad[] = {"",
                       "m",
                       "4GB",
                       "1.2.3",
                       "Gi",
                       "1 Gi",
                       "1e",
                       "1e+",
                       "abc",
                       "--1",
                       "1ee3",
                       "1Ei0",
                       "9999999999999999999999999999999",
                       "10Ei",
                       "1e40",
                       "1.5x"};
  for (const char* text : bad) {
    INFO(text);
    try {
      (void)Quantity::parse(text);
      FAIL("accepted");
    } catch (const QuantityError& e) {
      CHECK(std::string(e.what()).find(std::string("\"") + text + "\"") != std::string::npos);
    }
  }
}

TEST_CASE("quantity to_string is canonical and round-trips", "[quantity]") {
  struct Row {
    const char* text;
    const char* canonical;
  };
  const Row rows[] = {{"500m", "500m"},     {"1.5", "1500m"},  {"2", "2"},      {"4Gi", "4Gi"},
                      {"1536Mi", "1536Mi"}, {"1024Mi", "1Gi"}, {"1Ki", "1024"}, {"0", "0"},
                      {"2e3", "2000"},      {"1Ti", "1Ti"},    {"-1", "-1"}};
  for (const auto& row : rows) {
    INFO(row.text);
    const Quantity q = Quantity::parse(row.text);
    CHECK(q.to_string() == row.canonical);
    CHECK(Quantity::parse(q.to_string()) == q);
  }
}

TEST_CASE("quantity arithmetic and comparison are exact", "[quantity]") {
  const Quantity a = Quantity::parse("1.5");
  const Quantity b = Quantity::parse("500m");
  CHECK((a + b).milli() == 2000);
  CHECK((a - b).milli() == 1000);
  CHECK((b * 3).milli() == 1500);
  CHECK(b < a);
  CHECK(Quantity::parse("1Gi") > Quantity::parse("1G"));
  CHECK(Quantity::from_units(4) == Quantity::parse("4"));
  CHECK(Quantity::parse("500m").units_ceil() == 1);
  CHECK(Quantity::parse("4Gi").units_ceil() == 4294967296LL);
  CHECK(Quantity::parse("-1500m").units_ceil() == -1);
  CHECK(Quantity{}.is_zero());
}
