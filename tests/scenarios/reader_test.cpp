// The name rules and the "did you mean" matcher the loader's messages rely on.
#include <catch2/catch.hpp>

#include <array>

#include "scenarios/format/detail/reader.hpp"

using namespace t9k::scenarios::detail;

TEST_CASE("edit distance counts insertions, deletions, substitutions, transpositions", "[reader]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("slotPerWorker", "slotsPerWorker") == 1);
  CHECK(edit_distance("commands", "command") == 1);
  CHECK(edit_distance("OnFaliure", "OnFailure") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("closest match suggests only likely typos", "[reader]") {
  constexpr std::array<std::string_view, 4> names{"slotsPerWorker", "localRank", "run", "autotune"};
  CHECK(closest_match("slotPerWorker", names) == "slotsPerWorker");
  CHECK(closest_match("LocalRank", names) == "localRank");
  CHECK(closest_match("rnu", names) == "run");
  CHECK_FALSE(closest_match("python", names).has_value());
  CHECK_FALSE(closest_match("x", names).has_value());
  CHECK_FALSE(closest_match(std::string(100, 'a'), names).has_value());
}

TEST_CASE("Kubernetes name rules", "[reader]") {
  CHECK(is_dns1123_label("job-1"));
  CHECK(is_dns1123_label(std::string(63, 'a')));
  CHECK_FALSE(is_dns1123_label(std::string(64, 'a')));
  CHECK_FALSE(is_dns1123_label("-job"));
  CHECK_FALSE(is_dns1123_label("job-"));
  CHECK_FALSE(is_dns1123_label("Job"));
  CHECK_FALSE(is_dns1123_label("a.b"));
  CHECK_FALSE(is_dns1123_label(""));
  CHECK(is_dns1123_subdomain("a.b-c.d"));
  CHECK_FALSE(is_dns1123_subdomain("a..b"));
  CHECK(is_qualified_name("nvidia.com/gpu.product"));
  CHECK(is_qualified_name("app"));
  CHECK(is_qualified_name("App_1.x"));
  CHECK_FALSE(is_qualified_name("a/b/c"));
  CHECK_FALSE(is_qualified_name("Bad.Domain/x"));
  CHECK_FALSE(is_qualified_name("x/"));
  CHECK(is_label_value(""));
  CHECK(is_label_value("v1.2_3-a"));
  CHECK_FALSE(is_label_value("a b"));
  CHECK_FALSE(is_label_value("-a"));
}
