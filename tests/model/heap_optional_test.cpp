#include "model/heap_optional.hpp"

#include <string>

#include <catch2/catch.hpp>

using t9k::model::HeapOptional;

TEST_CASE("heap optional: behaves as std::optional does for the model's uses") {
  HeapOptional<std::string> a;
  CHECK_FALSE(a);
  CHECK(a == HeapOptional<std::string>{std::nullopt});
  a = std::string("tb");
  REQUIRE(a.has_value());
  CHECK(*a == "tb");

  HeapOptional<std::string> b = a;  // a copy holds its own value
  b->append("-2");
  CHECK(*a == "tb");
  CHECK(*b == "tb-2");
  CHECK_FALSE(a == b);
  b = a;
  CHECK(a == b);
  CHECK(&*a != &*b);

  b.reset();
  CHECK_FALSE(b);
  CHECK_FALSE(a == b);
  b.emplace() = "x";
  CHECK(*b == "x");
  a = std::nullopt;
  CHECK_FALSE(a.has_value());

  HeapOptional<std::string> c = std::move(b);
  CHECK(*c == "x");
  CHECK(sizeof(c) == sizeof(void*));  // why it exists: off the record that holds it
}
