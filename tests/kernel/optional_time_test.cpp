// OptionalTime reads, compares and converts as std::optional<SimTime> does, in 8 bytes.
#include "kernel/optional_time.hpp"

#include <optional>

#include <catch2/catch.hpp>

using t9k::kernel::OptionalTime;
using t9k::kernel::seconds;
using t9k::kernel::SimTime;

static_assert(sizeof(OptionalTime) == sizeof(SimTime));

TEST_CASE("OptionalTime: unset and set read as std::optional's", "[kernel][optional_time]") {
  OptionalTime t;
  CHECK_FALSE(t.has_value());
  CHECK_FALSE(static_cast<bool>(t));
  CHECK(t == std::nullopt);
  CHECK(t.value_or(SimTime{seconds(7)}) == SimTime{seconds(7)});
  CHECK_THROWS_AS(t.value(), std::bad_optional_access);

  t = SimTime{seconds(3)};
  REQUIRE(t.has_value());
  CHECK(*t == SimTime{seconds(3)});
  CHECK(t->time_since_epoch() == seconds(3));
  CHECK(t.value() == SimTime{seconds(3)});
  CHECK(t == SimTime{seconds(3)});
  CHECK_FALSE(t == std::nullopt);

  // Time zero is a time, not unset.
  t = SimTime{};
  CHECK(t.has_value());
  t.reset();
  CHECK_FALSE(t.has_value());
  t.emplace(SimTime{seconds(1)});
  CHECK(t == SimTime{seconds(1)});
  t = std::nullopt;
  CHECK_FALSE(t.has_value());
}

TEST_CASE("OptionalTime: equality and conversions both ways", "[kernel][optional_time]") {
  CHECK(OptionalTime() == OptionalTime(std::nullopt));
  CHECK_FALSE(OptionalTime() == OptionalTime(SimTime{}));
  CHECK(OptionalTime(SimTime{seconds(2)}) == OptionalTime(SimTime{seconds(2)}));
  CHECK_FALSE(OptionalTime(SimTime{seconds(2)}) == OptionalTime(SimTime{seconds(3)}));

  const std::optional<SimTime> none;
  const std::optional<SimTime> some = SimTime{seconds(5)};
  CHECK_FALSE(OptionalTime(none).has_value());
  CHECK(OptionalTime(some) == SimTime{seconds(5)});
  const std::optional<SimTime> back = OptionalTime(some);
  CHECK(back == some);
  const std::optional<SimTime> back_none = OptionalTime();
  CHECK_FALSE(back_none.has_value());

  // Compared with a std::optional either way round: unset equals empty, as optionals compare.
  CHECK(OptionalTime() == none);
  CHECK(none == OptionalTime());
  CHECK_FALSE(OptionalTime() != none);
  CHECK(OptionalTime(SimTime{seconds(5)}) == some);
  CHECK(some == OptionalTime(SimTime{seconds(5)}));
  CHECK(OptionalTime() != some);
  CHECK(some != OptionalTime());
  CHECK(OptionalTime(SimTime{seconds(4)}) != some);
}

TEST_CASE("OptionalTime: the unset value is refused as a time", "[kernel][optional_time]") {
  const SimTime unset{t9k::kernel::SimDuration{INT64_MIN}};
  CHECK_THROWS_AS(OptionalTime(unset), std::out_of_range);
  OptionalTime t;
  CHECK_THROWS_AS(t = unset, std::out_of_range);
  // One microsecond above it is a time.
  CHECK(OptionalTime(SimTime{t9k::kernel::SimDuration{INT64_MIN + 1}}).has_value());
}
