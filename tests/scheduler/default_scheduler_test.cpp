// The default scheduler (§8.1: jobs without spec.scheduler.t9kScheduler) and why gangs matter.
#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;

TEST_CASE("default scheduler: two 8-pod jobs on 8 free GPUs deadlock, the gang does not (§8.4)",
          "[default][gang]") {
  // Pods of the two jobs arrive interleaved, as two controllers creating pods concurrently do.
  TestWorld plain;
  plain.add_node("n1", res(64, 8));
  for (int i = 0; i < 8; ++i) {
    plain.add_default_pod("j1-" + std::to_string(i), res(1, 1));
    plain.add_default_pod("j2-" + std::to_string(i), res(1, 1));
  }
  Scheduler s;
  auto d = plain.cycle(s);
  CHECK(d.bindings.size() == 8);
  CHECK(plain.bound_in("j1-") == 4);  // 4 + 4: neither job has all its workers, neither starts
  CHECK(plain.bound_in("j2-") == 4);

  TestWorld gang;
  gang.add_node("n1", res(64, 8));
  gang.add_queue("q", 1);
  gang.add_group("j1", "q", 8);
  gang.add_group("j2", "q", 8);
  for (int i = 0; i < 8; ++i) {
    gang.add_pod("j1-" + std::to_string(i), "j1", res(1, 1));
    gang.add_pod("j2-" + std::to_string(i), "j2", res(1, 1));
  }
  d = gang.cycle(s);
  CHECK(d.bindings.size() == 8);
  CHECK(gang.bound_in("j1-") == 8);  // one whole job runs
  CHECK(gang.bound_in("j2-") == 0);
}

TEST_CASE("default scheduler: pod priority, then FIFO by creation", "[default]") {
  TestWorld w;
  w.add_node("n1", res(64, 2));
  w.add_default_pod("first", res(1, 1));
  w.add_default_pod("second", res(1, 1));
  w.add_default_pod("vip", res(1, 1), 100);
  Scheduler s;
  const auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 2);
  CHECK(d.bindings[0].pod == "vip");
  CHECK(d.bindings[1].pod == "first");
}

TEST_CASE("default scheduler: same filters (readiness, nodeSelector) and no queue quota",
          "[default]") {
  TestWorld w;
  auto& down = w.add_node("down", res(64, 8), "", "", {{"zone", "x"}});
  down.ready = false;
  w.snap.upsert_node(down);
  w.add_node("up", res(64, 8), "", "", {{"zone", "y"}});
  auto& p = w.add_default_pod("wants-x", res(1, 1));
  p.node_selector = {{"zone", "x"}};
  w.snap.upsert_pod(p);
  w.add_default_pod("any", res(1, 1));
  Scheduler s;
  w.cycle(s);
  CHECK(w.node_of("wants-x").empty());  // the only zone-x node is down
  CHECK(w.node_of("any") == "up");
}
