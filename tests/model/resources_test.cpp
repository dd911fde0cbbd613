// Resource lists summed, subtracted and compared per resource (model/meta.hpp).
#include <catch2/catch.hpp>

#include "model/meta.hpp"

using t9k::model::Quantity;
using t9k::model::ResourceList;

namespace {
ResourceList list(std::initializer_list<std::pair<const char*, const char*>> entries) {
  ResourceList r;
  for (const auto& [name, q] : entries) r[name] = Quantity::parse(q);
  return r;
}
}  // namespace

TEST_CASE("resource lists add and subtract per resource, missing counting as zero", "[resources]") {
  ResourceList a = list({{"cpu", "2"}, {"nvidia.com/gpu", "1"}});
  const ResourceList b = list({{"cpu", "500m"}, {"memory", "1Gi"}});

  ResourceList sum = a;
  t9k::model::add_resources(sum, b);
  CHECK(sum == list({{"cpu", "2500m"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}));

  // The copy and the in-place form agree, and a resource only in b goes negative.
  const ResourceList diff = t9k::model::subtract_resources(a, b);
  CHECK(diff == list({{"cpu", "1500m"}, {"memory", "-1Gi"}, {"nvidia.com/gpu", "1"}}));
  CHECK(a == list({{"cpu", "2"}, {"nvidia.com/gpu", "1"}}));  // subtract_resources copies
  t9k::model::subtract_from(a, b);
  CHECK(a == diff);

  // Adding back what was taken restores the quantities (zero entries remain, as in the books).
  t9k::model::add_resources(a, b);
  CHECK(t9k::model::get_resource(a, "cpu") == Quantity::parse("2"));
  CHECK(t9k::model::get_resource(a, "memory").is_zero());
  CHECK(t9k::model::get_resource(a, "nvidia.com/gpu") == Quantity::parse("1"));
}

TEST_CASE("fits compares every requested resource, missing counting as zero", "[resources]") {
  const ResourceList have = list({{"cpu", "4"}, {"nvidia.com/gpu", "8"}});
  CHECK(t9k::model::fits(list({{"cpu", "4"}, {"nvidia.com/gpu", "8"}}), have));
  CHECK_FALSE(t9k::model::fits(list({{"cpu", "4001m"}}), have));
  CHECK_FALSE(t9k::model::fits(list({{"memory", "1"}}), have));
  CHECK(t9k::model::fits(list({{"memory", "0"}}), have));  // a zero request needs nothing
}

TEST_CASE("within_limits is fits over the resources the limits name only", "[resources]") {
  // Table: used, limits, expected; each row also checked against fits() of the restricted list.
  struct Row {
    ResourceList used, limits;
    bool within;
  };
  const Row rows[] = {
      {list({{"nvidia.com/gpu", "8"}}), list({{"nvidia.com/gpu", "8"}}), true},   // at the limit
      {list({{"nvidia.com/gpu", "9"}}), list({{"nvidia.com/gpu", "8"}}), false},  // over it
      {list({{"cpu", "100"}, {"nvidia.com/gpu", "1"}}), list({{"nvidia.com/gpu", "8"}}),
       true},                                             // cpu unlimited
      {list({}), list({{"nvidia.com/gpu", "0"}}), true},  // nothing used
      {list({{"nvidia.com/gpu", "0"}}), list({{"nvidia.com/gpu", "-1"}}),
       true},  // zero needs nothing
      {list({{"nvidia.com/gpu", "-2"}}), list({{"nvidia.com/gpu", "-1"}}),
       true},                                                          // below a negative limit
      {list({{"memory", "1Ki"}}), list({{"memory", "1023"}}), false},  // units compared exactly
      {list({{"cpu", "1"}, {"memory", "2Gi"}}), list({{"cpu", "1"}, {"memory", "1Gi"}}),
       false},  // any resource
  };
  for (const Row& r : rows) {
    ResourceList restricted;
    for (const auto& [name, q] : r.limits) {
      if (r.used.count(name)) restricted[name] = r.used.at(name);
    }
    CHECK(t9k::model::within_limits(r.used, r.limits) == r.within);
    CHECK(t9k::model::fits(restricted, r.limits) == r.within);
  }
}
