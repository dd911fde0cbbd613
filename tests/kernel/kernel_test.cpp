#include <catch2/catch.hpp>

#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernel/kernel.hpp"
#include "kernel/selfcheck.hpp"

using namespace t9k::kernel;

TEST_CASE("run_until dispatches up to the horizon and sets the clock", "[kernel]") {
  Kernel k;
  std::vector<int> seen;
  k.schedule_at(at(seconds(1)), 0, 1, 1, [&] { seen.push_back(1); });
  k.schedule_at(at(seconds(5)), 0, 1, 2, [&] { seen.push_back(2); });
  k.schedule_at(at(seconds(10)), 0, 1, 3, [&] { seen.push_back(3); });
  CHECK(k.run_until(at(seconds(5))) == 2);
  CHECK(seen == std::vector<int>{1, 2});
  CHECK(k.now() == at(seconds(5)));
  CHECK(k.run_until(at(seconds(7))) == 0);
  CHECK(k.now() == at(seconds(7)));
  CHECK(k.step());
  CHECK(seen.back() == 3);
  CHECK_FALSE(k.step());
}

TEST_CASE("events scheduled from callbacks run in order, the past is refused", "[kernel]") {
  Kernel k;
  std::vector<std::int64_t> times;
  std::function<void()> tick = [&] {
    times.push_back(k.now().time_since_epoch().count());
    if (times.size() < 5) k.schedule_in(seconds(2), 0, 1, 0, tick);
  };
  k.schedule_at(SimTime{}, 0, 1, 0, tick);
  k.run();
  CHECK(times == std::vector<std::int64_t>{0, 2000000, 4000000, 6000000, 8000000});
  CHECK_THROWS_AS(k.schedule_at(at(seconds(1)), 0, 1, 0, nullptr), std::logic_error);
}

TEST_CASE("observers see every event, stop() ends a run early", "[kernel]") {
  Kernel k;
  std::vector<EventKey> observed;
  k.add_observer([&](const DispatchedEvent& e) { observed.push_back(e.key); });
  for (EventKey i = 0; i < 10; ++i) {
    k.schedule_at(at(seconds(static_cast<std::int64_t>(i))), 0, 7, i, [&, i] {
      if (i == 4) k.stop();
    });
  }
  CHECK(k.run() == 5);
  CHECK(observed.size() == 5);
  CHECK(k.pending_events() == 5);
  k.run();
  CHECK(observed.size() == 10);
}

TEST_CASE("cancelled events do not dispatch", "[kernel]") {
  Kernel k;
  int fired = 0;
  auto h = k.schedule_in(seconds(1), 0, 1, 0, [&] { ++fired; });
  k.schedule_in(seconds(2), 0, 1, 0, [&] { ++fired; });
  CHECK(k.cancel(h));
  k.run();
  CHECK(fired == 1);
  CHECK(k.dispatched() == 1);
}

TEST_CASE("the fingerprint is deterministic and sensitive to the event trace", "[kernel]") {
  auto run = [](EventKey perturb) {
    Kernel k;
    for (EventKey i = 0; i < 100; ++i) {
      k.schedule_at(at(milliseconds(static_cast<std::int64_t>(i * 7 % 13))),
                    static_cast<Phase>(i % 3), static_cast<EventKind>(i % 5), i == 50 ? perturb : i,
                    nullptr);
    }
    k.run();
    return k.fingerprint();
  };
  CHECK(run(50) == run(50));
  CHECK(run(50) != run(51));
}

TEST_CASE("kernel self-check: M/M/1 wait and exact Little's law", "[kernel][selfcheck]") {
  const auto r = run_selfcheck(1, 100000);
  INFO(r.message);
  CHECK(r.littles_law_exact);
  CHECK(r.customers == 100000);
  CHECK(r.ok);
  CHECK(run_selfcheck(1, 1000).fingerprint == run_selfcheck(1, 1000).fingerprint);
  CHECK(run_selfcheck(1, 1000).fingerprint != run_selfcheck(2, 1000).fingerprint);
}

namespace {
struct Recorder : EventHandler {
  Kernel* k = nullptr;
  std::vector<std::tuple<std::int64_t, EventKind, EventKey, EventArg>> seen;
  void handle(const DispatchedEvent& e) override {
    seen.emplace_back(e.time.time_since_epoch().count(), e.kind, e.key, e.arg);
    if (e.arg == 1) k->post_in(seconds(1), 0, e.kind, e.key, 2);  // a handler may post
  }
};
}  // namespace

TEST_CASE("posted events go to the handler routed for their kind, with their arg", "[kernel]") {
  Kernel k;
  Recorder a, b;
  a.k = b.k = &k;
  k.route(3, &a);
  k.route(4, &b);
  k.post_at(at(seconds(2)), 0, 4, 40, 7);
  k.post_at(at(seconds(1)), 0, 3, 30, 1);
  k.run();
  using Row = std::tuple<std::int64_t, EventKind, EventKey, EventArg>;
  CHECK(a.seen == std::vector<Row>{{1000000, 3, 30, 1}, {2000000, 3, 30, 2}});
  CHECK(b.seen == std::vector<Row>{{2000000, 4, 40, 7}});
  CHECK(k.dispatched() == 3);
  CHECK_THROWS_AS(k.post_in(seconds(1), 0, 9, 0), std::logic_error);  // nothing routed for kind 9
  CHECK_THROWS_AS(k.route(3, &b), std::logic_error);                  // kind 3 is a's
  CHECK_NOTHROW(k.route(3, &a));
}

TEST_CASE("posting instead of scheduling a callback leaves the fingerprint as it was", "[kernel]") {
  // The fingerprint folds (time, phase, kind, key), never how the event is delivered.
  Kernel with_callbacks, posted;
  Recorder r;
  r.k = &posted;
  posted.route(5, &r);
  for (EventKey i = 0; i < 50; ++i) {
    const auto t = at(milliseconds(static_cast<std::int64_t>(i * 11 % 17)));
    with_callbacks.schedule_at(t, static_cast<Phase>(i % 3), 5, i, [] {});
    posted.post_at(t, static_cast<Phase>(i % 3), 5, i, 100 + i);
  }
  with_callbacks.run();
  posted.run();
  CHECK(with_callbacks.fingerprint() == posted.fingerprint());
  REQUIRE(r.seen.size() == 50);
}
