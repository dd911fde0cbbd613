// MinTree (scheduler/min_tree.hpp, the cycle's skip tree over a queue's pending groups) against a
// plain scan: bulk loads, single changes, and every start position and bound.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "scheduler/min_tree.hpp"

using t9k::scheduler::MinTree;

namespace {

std::size_t scan_first_at_most(const std::vector<std::int64_t>& v, std::size_t from,
                               std::int64_t x) {
  for (std::size_t i = from; i < v.size(); ++i)
    if (v[i] <= x) return i;
  return MinTree::kNone;
}

// Every (from, x) over the values' range agrees with the scan; positions past the values hold
// kHighest, so they are never found.
void check_all(const MinTree& t, const std::vector<std::int64_t>& v) {
  for (std::size_t from = 0; from <= t.capacity(); ++from)
    for (std::int64_t x = -2; x <= 10; ++x) {
      const std::size_t got = t.first_at_most(from, x);
      const std::size_t want = scan_first_at_most(v, from, x);
      INFO("from " << from << ", x " << x);
      REQUIRE(got == want);
    }
}

}  // namespace

TEST_CASE("min tree: first position at most x, against a scan", "[min-tree]") {
  std::mt19937_64 rng(49);
  for (const std::size_t n : {1u, 2u, 3u, 7u, 64u, 100u}) {
    MinTree t;
    t.reset(n);
    REQUIRE(t.capacity() >= n);
    std::vector<std::int64_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = static_cast<std::int64_t>(rng() % 12) - 1;  // -1 .. 10
      t.load(i, v[i]);
    }
    t.rebuild();
    check_all(t, v);
    for (int step = 0; step < 50; ++step) {
      const std::size_t i = rng() % n;
      v[i] = step % 7 == 0 ? MinTree::kHighest : static_cast<std::int64_t>(rng() % 12) - 1;
      t.set(i, v[i]);
    }
    check_all(t, v);
  }
}

TEST_CASE("min tree: an empty tree and a tree of one", "[min-tree]") {
  MinTree t;
  t.reset(0);
  CHECK(t.first_at_most(0, MinTree::kHighest - 1) == MinTree::kNone);
  t.reset(1);
  CHECK(t.first_at_most(0, 5) == MinTree::kNone);
  t.set(0, 5);
  CHECK(t.first_at_most(0, 5) == 0);
  CHECK(t.first_at_most(0, 4) == MinTree::kNone);
  CHECK(t.first_at_most(1, 5) == MinTree::kNone);
}
