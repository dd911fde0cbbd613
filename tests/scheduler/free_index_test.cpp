// FreeGpuIndex: the snapshot's free-GPU index must walk in exactly the order of the ordered set
// of (free GPU, node id) it replaced (docs/scheduler.md "Scale").
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "scheduler/free_index.hpp"

using t9k::scheduler::FreeGpuIndex;
using Key = FreeGpuIndex::Key;

namespace {

std::vector<Key> walk_up(const FreeGpuIndex& idx, std::int64_t from) {
  std::vector<Key> out;
  for (auto c = idx.lower_bound(from); c.valid(); c.next()) out.push_back(*c);
  return out;
}
std::vector<Key> walk_down(const FreeGpuIndex& idx) {
  std::vector<Key> out;
  for (auto c = idx.rbegin_cursor(); c.valid(); c.next()) out.push_back(*c);
  return out;
}
std::vector<Key> set_up(const std::set<Key>& s, std::int64_t from) {
  return {s.lower_bound({from, std::numeric_limits<std::int32_t>::min()}), s.end()};
}
// The ids in [from, to) at a key >= `free`, in id order, by at_least.
std::vector<std::int32_t> ids_at_least(const FreeGpuIndex& idx, std::int64_t free,
                                       std::int32_t from, std::int32_t to) {
  std::vector<std::int32_t> out;
  auto c = idx.at_least(free, from, to);
  for (auto n = c.next(); n >= 0; n = c.next()) out.push_back(n);
  return out;
}
std::vector<std::int32_t> set_ids_at_least(const std::set<Key>& s, std::int64_t free,
                                           std::int32_t from, std::int32_t to) {
  std::vector<std::int32_t> out;
  for (const auto& [key, id] : s)
    if (key >= free && id >= from && id < to) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("free index: walks in (free, id) order, up from a key and down from the top",
          "[snapshot][free-index]") {
  FreeGpuIndex idx;
  CHECK(idx.empty());
  CHECK_FALSE(idx.lower_bound(0).valid());
  CHECK_FALSE(idx.rbegin_cursor().valid());
  idx.insert(8000, 3);
  idx.insert(4000, 70);
  idx.insert(8000, 1);
  idx.insert(0, 200);
  idx.insert(4000, 5000);  // a word and a summary word far from the others
  CHECK(idx.size() == 5);
  CHECK(walk_up(idx, 1) == std::vector<Key>{{4000, 70}, {4000, 5000}, {8000, 1}, {8000, 3}});
  CHECK(walk_up(idx, 4001) == std::vector<Key>{{8000, 1}, {8000, 3}});
  CHECK(walk_up(idx, 9000).empty());
  CHECK(walk_down(idx) ==
        std::vector<Key>{{8000, 3}, {8000, 1}, {4000, 5000}, {4000, 70}, {0, 200}});
  // In id order, the nodes at or above a key within an id range (a rack's nodes with room).
  CHECK(ids_at_least(idx, 1, 0, 6000) == std::vector<std::int32_t>{1, 3, 70, 5000});
  CHECK(ids_at_least(idx, 0, 0, 6000) == std::vector<std::int32_t>{1, 3, 70, 200, 5000});
  CHECK(ids_at_least(idx, 4001, 0, 6000) == std::vector<std::int32_t>{1, 3});
  CHECK(ids_at_least(idx, 1, 2, 70) == std::vector<std::int32_t>{3});  // `to` excluded
  CHECK(ids_at_least(idx, 1, 64, 71) == std::vector<std::int32_t>{70});
  CHECK(ids_at_least(idx, 9000, 0, 6000).empty());
  CHECK(ids_at_least(idx, 1, 5001, 1 << 20).empty());     // past the last word
  CHECK(ids_at_least(idx, 1, 10, 10).empty());            // an empty range
  CHECK(ids_at_least(idx, 1, 1 << 20, 1 << 21).empty());  // beyond every word
  idx.erase(8000, 1);
  idx.erase(8000, 1);     // absent: nothing
  idx.erase(1234, 3);     // no such level: nothing
  idx.erase(4000, 9999);  // beyond every id: nothing
  CHECK(idx.size() == 4);
  CHECK(std::vector<Key>(idx.begin(), idx.end()) ==
        std::vector<Key>{{0, 200}, {4000, 70}, {4000, 5000}, {8000, 3}});
}

TEST_CASE("free index: random moves keep the order of an ordered set", "[snapshot][free-index]") {
  std::mt19937_64 rng(20);
  for (int round = 0; round < 20; ++round) {
    FreeGpuIndex idx;
    std::set<Key> ref;
    std::vector<std::int64_t> free_of;  // by node: its key, -1 when absent
    const int nodes = 1 + static_cast<int>(rng() % (round < 10 ? 150 : 9000));
    // A few levels as on a real fleet, and in some rounds many scattered ones.
    const int levels = round % 4 == 3 ? 500 : 9;
    for (int step = 0; step < 4000; ++step) {
      const auto n = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(nodes));
      if (free_of.size() <= static_cast<std::size_t>(n))
        free_of.resize(static_cast<std::size_t>(n) + 1, -1);
      auto& f = free_of[static_cast<std::size_t>(n)];
      if (f >= 0) {
        idx.erase(f, n);
        ref.erase({f, n});
      }
      f = rng() % 5 == 0
              ? -1
              : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(levels)) * 1000;
      if (f >= 0) {
        idx.insert(f, n);
        ref.insert({f, n});
      }
      if (step % 97 == 0) {
        const auto from =
            static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(levels + 1)) * 1000 - 500;
        REQUIRE(walk_up(idx, from) == set_up(ref, from));
        REQUIRE(walk_down(idx) == std::vector<Key>(ref.rbegin(), ref.rend()));
        const auto lo = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(nodes));
        const auto hi = lo + static_cast<std::int32_t>(rng() % 300);
        REQUIRE(ids_at_least(idx, from, lo, hi) == set_ids_at_least(ref, from, lo, hi));
        REQUIRE(idx.size() == ref.size());
      }
    }
    CHECK(std::vector<Key>(idx.begin(), idx.end()) == std::vector<Key>(ref.begin(), ref.end()));
  }
}

// least_cpu bounds from below the free CPU of the nodes at or above a key that have room for a
// request: the walk's CPU bound (docs/scheduler.md "Scale") is only as sound as this.
TEST_CASE("free index: least free CPU above a key, among nodes with room",
          "[snapshot][free-index]") {
  FreeGpuIndex idx;
  CHECK(idx.least_cpu(0, 0) == std::numeric_limits<std::int64_t>::max());
  idx.insert(8000, 1, 192000);
  idx.insert(8000, 2, 40500);
  idx.insert(4000, 3, 3000);
  idx.insert(1000, 4, 500);
  CHECK(idx.least_cpu(8000, 4000) == 40000);   // node 2's bucket: [40, 41) CPUs
  CHECK(idx.least_cpu(8000, 40200) == 40200);  // the request's own bucket: only the request is sure
  CHECK(idx.least_cpu(4000, 0) == 3000);       // node 3, 3 CPUs (node 4 is below the key)
  CHECK(idx.least_cpu(4000, 1000) == 3000);
  CHECK(idx.least_cpu(0, 0) == 0);      // node 4's 500 milli sit in the request's bucket
  CHECK(idx.least_cpu(0, 600) == 600);  // bucket 0 holds 500 < 600, and maybe more
  CHECK(idx.least_cpu(9000, 0) == std::numeric_limits<std::int64_t>::max());
  CHECK(idx.least_cpu(8000, 300000) == std::numeric_limits<std::int64_t>::max());
  idx.insert(8000, 5, 900000);  // above the last bucket's edge: counted at its lower edge
  CHECK(idx.least_cpu(8000, 300000) == 300000);  // the request's own (last) bucket
  idx.erase(8000, 2, 40500);
  CHECK(idx.least_cpu(8000, 4000) == 192000);
  idx.erase(4000, 3, 3000);
  CHECK(idx.least_cpu(1000, 1000) == 192000);
}

TEST_CASE("free index: least_cpu never exceeds the true least, under random moves",
          "[snapshot][free-index]") {
  std::mt19937_64 rng(7);
  FreeGpuIndex idx;
  std::vector<std::pair<std::int64_t, std::int64_t>> at(3000, {-1, 0});  // by node: (key, cpu)
  for (int step = 0; step < 20000; ++step) {
    const auto n = static_cast<std::int32_t>(rng() % at.size());
    auto& [key, cpu] = at[static_cast<std::size_t>(n)];
    if (key >= 0) idx.erase(key, n, cpu);
    key = rng() % 6 == 0 ? -1 : static_cast<std::int64_t>(rng() % 9) * 1000;
    cpu = static_cast<std::int64_t>(rng() % 300000) - 2000;
    if (key >= 0) idx.insert(key, n, cpu);
    if (step % 50 == 0) {
      const auto from = static_cast<std::int64_t>(rng() % 10) * 1000;
      const auto need = static_cast<std::int64_t>(rng() % 280000);
      std::int64_t truth = std::numeric_limits<std::int64_t>::max();
      for (const auto& [k, c] : at)
        if (k >= from && c >= need) truth = std::min(truth, c);
      const std::int64_t got = idx.least_cpu(from, need);
      REQUIRE(got <= truth);  // a lower bound (it is tight only to the bucket)
      if (truth != std::numeric_limits<std::int64_t>::max())
        REQUIRE(got >= std::min<std::int64_t>(need, 255000));
    }
  }
}
