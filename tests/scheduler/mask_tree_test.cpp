// MaskTree (scheduler/mask_tree.hpp, the cycle's tree of lazy gangs by size) against a plain
// scan: bulk loads, single changes, every start position and a range of query masks.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "fixtures.hpp"
#include "scheduler/mask_tree.hpp"

using t9k::scheduler::MaskTree;

TEST_CASE("mask tree: the first position sharing a bit, as a scan finds it", "[scheduler][lazy]") {
  t9k::scheduler::testing::Rand r{49};
  for (int round = 0; round < 30; ++round) {
    const auto n = static_cast<std::size_t>(r.uniform(1, 70));
    std::vector<std::uint64_t> v(n);
    MaskTree t;
    t.reset(n + static_cast<std::size_t>(r.uniform(0, 5)));
    for (auto& m : v) m = r.chance(40) ? std::uint64_t{1} << r.uniform(0, 6) : 0;
    for (std::size_t i = 0; i < n; ++i) t.load(i, v[i]);
    t.rebuild();
    for (int step = 0; step < 40; ++step) {
      if (step > 0) {  // one change: set() keeps the ancestors
        const auto i = static_cast<std::size_t>(r.uniform(0, static_cast<int>(n) - 1));
        v[i] = r.chance(50) ? std::uint64_t{1} << r.uniform(0, 6) : 0;
        t.set(i, v[i]);
      }
      for (std::size_t from = 0; from <= t.capacity(); ++from) {
        const std::uint64_t q = r.chance(10) ? ~std::uint64_t{0} : r.next() & 0x7f;
        std::size_t want = MaskTree::kNone;
        for (std::size_t i = from; i < n && want == MaskTree::kNone; ++i)
          if (v[i] & q) want = i;
        INFO("round " << round << " step " << step << " from " << from << " query " << q);
        REQUIRE(t.first_any(from, q) == want);
        if (from < n) REQUIRE(t.at(from) == v[from]);
      }
    }
  }
}
