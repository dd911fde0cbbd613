#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernel/event_queue.hpp"
#include "kernel/random.hpp"

using namespace t9k::kernel;

namespace {
std::vector<EventKey> drain(EventQueue& q) {
  std::vector<EventKey> order;
  DispatchedEvent info{};
  Callback cb;
  while (!q.empty()) {
    q.pop(info, cb);
    order.push_back(info.key);
  }
  return order;
}
}  // namespace

TEST_CASE("events are ordered by time, then phase, then FIFO", "[kernel][queue]") {
  EventQueue q;
  q.push(at(seconds(2)), 0, 0, 1, nullptr);
  q.push(at(seconds(1)), 5, 0, 2, nullptr);
  q.push(at(seconds(1)), 1, 0, 3, nullptr);
  q.push(at(seconds(1)), 1, 0, 4, nullptr);
  q.push(at(seconds(1)), 1, 0, 5, nullptr);
  q.push(at(seconds(0)), 9, 0, 6, nullptr);
  CHECK(drain(q) == std::vector<EventKey>{6, 3, 4, 5, 2, 1});
}

TEST_CASE("cancel is O(1), lazy, and ignores stale handles", "[kernel][queue]") {
  EventQueue q;
  auto a = q.push(at(seconds(1)), 0, 0, 1, nullptr);
  auto b = q.push(at(seconds(2)), 0, 0, 2, nullptr);
  q.push(at(seconds(3)), 0, 0, 3, nullptr);
  CHECK(q.size() == 3);
  CHECK(q.cancel(b));
  CHECK_FALSE(q.cancel(b));
  CHECK(q.size() == 2);
  CHECK(q.pending(a));
  CHECK_FALSE(q.pending(b));
  CHECK(drain(q) == std::vector<EventKey>{1, 3});
  // a's slot has been reused by nothing yet, but its generation moved on: stale.
  CHECK_FALSE(q.cancel(a));
  auto c = q.push(at(seconds(4)), 0, 0, 4, nullptr);
  CHECK_FALSE(q.cancel(a));  // same slot as c perhaps, but a different generation
  CHECK(q.pending(c));
  CHECK(q.next_time() == at(seconds(4)));
}

TEST_CASE("a random workload pops in non-decreasing (time, phase, seq) order", "[kernel][queue]") {
  EventQueue q;
  Rng r(42);
  std::vector<EventHandle> handles;
  for (int i = 0; i < 20000; ++i) {
    handles.push_back(q.push(at(SimDuration{static_cast<std::int64_t>(r.below(1000))}),
                             static_cast<Phase>(r.below(4)), 0, static_cast<EventKey>(i), nullptr));
  }
  std::size_t cancelled = 0;
  for (std::size_t i = 0; i < handles.size(); i += 3) cancelled += q.cancel(handles[i]) ? 1 : 0;
  CHECK(q.size() == handles.size() - cancelled);
  DispatchedEvent prev{}, info{};
  Callback cb;
  bool first = true;
  std::size_t n = 0;
  while (!q.empty()) {
    q.pop(info, cb);
    CHECK(info.key % 3 != 0);
    if (!first) {
      const bool ordered =
          prev.time < info.time ||
          (prev.time == info.time && (prev.phase < info.phase ||
                                      (prev.phase == info.phase && prev.sequence < info.sequence)));
      REQUIRE(ordered);
    }
    prev = info;
    first = false;
    ++n;
  }
  CHECK(n == handles.size() - cancelled);
}

TEST_CASE("a peek does not stop an earlier push, pushes below the last pop are refused",
          "[kernel][queue]") {
  EventQueue q;
  q.push(at(seconds(20)), 0, 0, 1, nullptr);
  CHECK(q.next_time() == at(seconds(20)));    // the origin moves to 20 s
  q.push(at(seconds(15)), 0, 0, 2, nullptr);  // still legal: nothing was popped
  q.push(at(seconds(15)), 0, 0, 3, nullptr);
  CHECK(q.next_time() == at(seconds(15)));
  DispatchedEvent info{};
  Callback cb;
  q.pop(info, cb);
  CHECK(info.key == 2);
  CHECK_THROWS_AS(q.push(at(seconds(14)), 0, 0, 4, nullptr), std::logic_error);
  q.push(at(seconds(15)), 0, 0, 5, nullptr);  // same instant as the last pop is fine
  CHECK(drain(q) == std::vector<EventKey>{3, 5, 1});
}

TEST_CASE("an event at a lower phase scheduled at the current instant runs next",
          "[kernel][queue]") {
  EventQueue q;
  q.push(at(seconds(1)), 3, 0, 1, nullptr);
  q.push(at(seconds(1)), 3, 0, 2, nullptr);
  DispatchedEvent info{};
  Callback cb;
  q.pop(info, cb);
  CHECK(info.key == 1);
  q.push(at(seconds(1)), 1, 0, 3, nullptr);  // e.g. a pod change caused by a reconcile
  CHECK(drain(q) == std::vector<EventKey>{3, 2});
}

TEST_CASE("interleaved pushes, pops and cancels match a reference model", "[kernel][queue]") {
  // Reference: a sorted multiset of (time, phase, seq) with the same operations.
  EventQueue q;
  std::vector<std::tuple<std::int64_t, int, std::uint64_t>> ref;
  std::vector<std::pair<EventHandle, std::tuple<std::int64_t, int, std::uint64_t>>> handles;
  Rng r(2024);
  std::int64_t now = 0;
  std::uint64_t seq = 0;
  for (int step = 0; step < 50000; ++step) {
    const auto op = r.below(10);
    if (op < 6 || ref.empty()) {
      const std::int64_t t =
          now +
          static_cast<std::int64_t>(r.below(3) == 0 ? 0 : r.below(std::uint64_t{1} << r.below(40)));
      const int phase = static_cast<int>(r.below(4));
      auto key = std::make_tuple(t, phase, seq);
      handles.emplace_back(q.push(at(SimDuration{t}), static_cast<Phase>(phase), 0, seq, nullptr),
                           key);
      ref.push_back(key);
      ++seq;
    } else if (op < 8) {
      auto& [h, key] = handles[r.below(handles.size())];
      if (q.cancel(h)) ref.erase(std::find(ref.begin(), ref.end(), key));
    } else {
      DispatchedEvent info{};
      Callback cb;
      auto it = std::min_element(ref.begin(), ref.end());
      q.pop(info, cb);
      REQUIRE(info.time.time_since_epoch().count() == std::get<0>(*it));
      REQUIRE(info.phase == std::get<1>(*it));
      REQUIRE(info.key == std::get<2>(*it));
      now = std::get<0>(*it);
      ref.erase(it);
    }
    REQUIRE(q.size() == ref.size());
  }
}
