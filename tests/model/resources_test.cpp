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
