// Preemption (spec §8.6, §11 Q9).
#include <catch2/catch.hpp>

#include <algorithm>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;
namespace model = t9k::model;

namespace {

SchedulerOptions with_preemption(bool intra = false) {
  SchedulerOptions o;
  o.preemption = true;
  o.intra_queue_preemption = intra;
  return o;
}

// Every pod of the §8.6 example is a bare pod with a queue label (a one-member group).
void bare(TestWorld& w, const std::string& name, const std::string& queue, std::int64_t cpu) {
  w.add_pod(name, "", res(cpu), "", queue);
}

}  // namespace

TEST_CASE("§8.6 walk-through: B2 blocked, C2 blocked by quota, D2 preempts A3",
          "[preemption][spec]") {
  TestWorld w;
  w.add_node("n1", res(300));  // cluster {cpu: 300}
  w.add_queue("A", 1, res(200));
  w.add_queue("B", 1, res(100));
  w.add_queue("C", 2, res(50));
  w.add_queue("D", 2, res(200));
  for (const auto* p : {"A1", "A2", "A3"}) bare(w, p, "A", 50);
  bare(w, "B1", "B", 50);
  bare(w, "C1", "C", 50);
  bare(w, "D1", "D", 50);
  Scheduler s(with_preemption());
  CHECK(w.cycle(s).bindings.size() == 6);  // the cluster is now full

  bare(w, "B2", "B", 50);
  auto d = w.cycle(s);
  CHECK(d.empty());  // full, and equal priority with A does not allow preemption

  bare(w, "C2", "C", 50);
  d = w.cycle(s);
  CHECK(d.empty());  // 50 + 50 > C's quota of 50: blocked before any preemption is considered

  bare(w, "D2", "D", 50);
  d = w.cycle(s);
  REQUIRE(d.evictions.size() == 1);
  CHECK(d.evictions[0].pod == "A3");  // lowest queue priority, the queue over its share, newest
  CHECK(d.evictions[0].reason == model::DeletionReason::Preemption);
  CHECK(d.bindings.empty());  // D2 waits for A3 to go
  d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].pod == "D2");
  CHECK(w.node_of("B2").empty());
  CHECK(w.node_of("C2").empty());
}

TEST_CASE("preemption is off unless enabled (§8.6)", "[preemption]") {
  TestWorld w;
  w.add_node("n1", res(100));
  w.add_queue("low", 1);
  w.add_queue("high", 2);
  bare(w, "l", "low", 100);
  Scheduler s;
  w.cycle(s);
  bare(w, "h", "high", 100);
  CHECK(w.cycle(s).empty());
}

TEST_CASE("preemption never takes from a non-preemptible queue (§8.2)", "[preemption]") {
  TestWorld w;
  w.add_node("n1", res(100));
  w.add_queue("prod", 1, std::nullopt, false);
  w.add_queue("high", 2);
  bare(w, "p", "prod", 100);
  Scheduler s(with_preemption());
  w.cycle(s);
  bare(w, "h", "high", 100);
  CHECK(w.cycle(s).empty());
}

TEST_CASE("preemption evicts whole victim gangs by default (§11 Q9)", "[preemption][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_node("n2", res(64, 8));
  w.add_queue("low", 1);
  w.add_queue("high", 2);
  w.add_group("victim", "low", 2);
  w.add_pods("victim", 2, res(1, 8));  // one pod per node
  Scheduler s(with_preemption());
  w.cycle(s);
  REQUIRE(w.bound_in("victim") == 2);
  w.add_group("h", "high", 1);
  w.add_pods("h", 1, res(1, 8));  // needs one node
  const auto d = w.cycle(s);
  // One node would do, but a rigid gang is never cut below minMember: both go.
  CHECK(d.evictions.size() == 2);
  CHECK(has_eviction(d, "victim-0"));
  CHECK(has_eviction(d, "victim-1"));
}

TEST_CASE("preemption takes elastic surplus pods first, newest first (§11 Q8, Q9)",
          "[preemption][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 4));
  w.add_queue("low", 1);
  w.add_queue("high", 2);
  w.add_group("el", "low", 2);
  w.add_pods("el", 4, res(1, 1));  // minMember 2, 2 surplus
  Scheduler s(with_preemption());
  w.cycle(s);
  REQUIRE(w.bound_in("el") == 4);
  w.add_group("h", "high", 1);
  w.add_pods("h", 1, res(1, 1));
  auto d = w.cycle(s);
  REQUIRE(d.evictions.size() == 1);
  CHECK(d.evictions[0].pod == "el-3");  // the newest surplus pod
  w.cycle(s);
  CHECK(w.node_of("h-0") == "n1");
  // A bigger preemptor cannot be served by surplus alone: the whole group goes, never 1 of 2.
  w.add_group("h2", "high", 1);
  w.add_pods("h2", 1, res(1, 3));
  d = w.cycle(s);
  CHECK(d.evictions.size() == 3);  // el-0, el-1, el-2: the whole group
}

TEST_CASE("preemption only when the whole preempting gang then fits (§11 Q9)",
          "[preemption][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_node("n2", res(64, 8));
  w.add_queue("low", 1);
  w.add_queue("prod", 1, std::nullopt, false);
  w.add_queue("high", 2);
  w.add_group("v", "low", 1);
  w.add_pods("v", 1, res(1, 8));
  w.add_group("p", "prod", 1);
  w.add_pods("p", 1, res(1, 8));
  Scheduler s(with_preemption());
  w.cycle(s);
  w.add_group("h", "high", 2);
  w.add_pods("h", 2, res(1, 8));  // needs both nodes; only one can be freed
  CHECK(w.cycle(s).empty());
}

TEST_CASE("victims terminating: the preemptor waits instead of preempting again", "[preemption]") {
  TestWorld w;
  w.add_node("n1", res(100));
  w.add_queue("low", 1);
  w.add_queue("high", 2);
  bare(w, "l1", "low", 50);
  bare(w, "l2", "low", 50);
  Scheduler s(with_preemption());
  w.cycle(s);
  bare(w, "h", "high", 50);
  auto d = s.schedule(w.snap, sec(10));
  REQUIRE(d.evictions.size() == 1);
  w.snap.evict(d.evictions[0].pod);  // terminating: still holds its resources
  d = s.schedule(w.snap, sec(11));
  CHECK(d.empty());  // no second victim while the first shuts down
}

TEST_CASE("intra-queue preemption by PodGroup priority is an off-by-default option (§11 Q9)",
          "[preemption]") {
  for (const bool intra : {false, true}) {
    TestWorld w;
    w.add_node("n1", res(64, 8));
    w.add_queue("q", 1);
    w.add_group("low", "q", 1, 1);
    w.add_pods("low", 1, res(1, 8));
    Scheduler s(with_preemption(intra));
    w.cycle(s);
    w.add_group("urgent", "q", 1, 50);
    w.add_pods("urgent", 1, res(1, 8));
    w.add_group("same", "q", 1, 1);
    w.add_pods("same", 1, res(1, 8));
    const auto d = w.cycle(s);
    if (intra) {
      REQUIRE(d.evictions.size() == 1);
      CHECK(d.evictions[0].pod == "low-0");
    } else {
      CHECK(d.evictions.empty());
    }
  }
}

TEST_CASE("cascade: a preempted job's recreated pods wait and may preempt further (§8.6)",
          "[preemption][cascade]") {
  TestWorld w;
  w.add_node("n1", res(64, 8), "", "", {{"pool", "one"}});
  w.add_node("n2", res(64, 8), "", "", {{"pool", "two"}});
  w.add_queue("L", 1);
  w.add_queue("M", 2);
  auto h = w.add_queue("H", 3);
  h.spec.node_selector = model::LabelSelector{{{"pool", "one"}}, {}};
  w.snap.upsert_queue(h);
  w.add_group("m", "M", 1);
  w.add_pods("m", 1, res(1, 8));
  w.run_on("m-0", "n1");
  w.add_group("l", "L", 1);
  w.add_pods("l", 1, res(1, 8));
  w.run_on("l-0", "n2");
  w.add_group("h", "H", 1);
  w.add_pods("h", 1, res(1, 8));
  Scheduler s(with_preemption());
  // The loop a world runs: apply decisions; a job controller recreates every deleted pod.
  std::vector<std::string> evicted;
  for (int round = 0; round < 8; ++round) {
    const auto d = w.cycle(s, 100 + round);
    for (const auto& e : d.evictions) {
      evicted.push_back(e.pod);
      const std::string group = e.pod.substr(0, e.pod.find('-'));
      w.add_pod(e.pod + "r", group, res(1, 8));
    }
    if (d.empty()) break;
  }
  // H can only use n1: it takes M's node (L, on n2, is useless to it and is reprieved); M's
  // recreated pod then preempts L on n2; L's recreated pod waits.
  CHECK(evicted == std::vector<std::string>{"m-0", "l-0"});
  CHECK(w.node_of("h-0") == "n1");
  CHECK(w.node_of("m-0r") == "n2");
  CHECK(w.node_of("l-0r").empty());
}

// ---- nomination (§8.6: the preemptor's resources are reserved until it is placed) -------------

namespace {

struct LivelockRun {
  int evictions = 0;
  int research_bindings = 0;  // low-priority pods bound while the preemptor waited
  int cycles_to_place = -1;   // cycle in which the preemptor was bound
  std::vector<std::string> prod_nodes;
};

// The bug report in miniature: a production gang (queue priority 10, 4 pods × 8 GPUs) needs all
// of h100-4, where four 1-GPU research pods run (queue priority 1, preemptible); h100-1..3 are
// free. The victims terminate one at a time; each one's job recreates its pod at once, and more
// research pods wait. `nominate` false is a world that never calls ClusterSnapshot::nominate.
LivelockRun run_livelock_scenario(bool nominate) {
  TestWorld w;
  for (int i = 1; i <= 4; ++i) w.add_node("h100-" + std::to_string(i), res(64, 8));
  w.add_queue("research", 1);
  w.add_queue("prod", 10);
  for (int i = 0; i < 4; ++i) {
    const std::string g = "r" + std::to_string(i);
    w.add_group(g, "research", 1);
    w.add_pod(g + "-0", g, res(1, 1));
    w.run_on(g + "-0", "h100-4");
  }
  w.add_group("prod", "prod", 4);
  w.add_pods("prod", 4, res(8, 8));
  Scheduler s(with_preemption());
  LivelockRun out;
  // Victims still terminating and the next one of them to finish.
  auto apply = [&](const Decisions& d) {
    for (const auto& b : d.bindings) {
      w.snap.bind(b.pod, b.node);
      w.pods.at(b.pod).node_name = b.node;
      if (b.pod.rfind("prod", 0) == 0)
        out.prod_nodes.push_back(b.node);
      else
        ++out.research_bindings;
    }
    for (const auto& e : d.evictions) {
      ++out.evictions;
      w.snap.evict(e.pod);
      w.terminating.push_back(e.pod);
      if (nominate) w.snap.nominate(e.preemptor, e.reservations);
    }
  };
  for (int cycle = 0; cycle < 40 && out.prod_nodes.empty(); ++cycle) {
    // One victim is gone per cycle (graceful terminations seconds apart); its job recreates
    // its pod (a new object of the same group), which waits.
    if (!w.terminating.empty()) {
      const std::string gone = w.terminating.front();
      w.finish(gone);
      const std::string group = gone.substr(0, gone.find('-'));
      w.add_pod(gone + "r", group, res(1, 1));
    }
    if (cycle == 1)  // other research work arrives while the preemptor waits
      for (int i = 0; i < 4; ++i) {
        const std::string g = "x" + std::to_string(i);
        w.add_group(g, "research", 1);
        w.add_pod(g + "-0", g, res(1, 1));
      }
    apply(s.schedule(w.snap, sec(100 + cycle)));
    if (!out.prod_nodes.empty()) out.cycles_to_place = cycle;
  }
  return out;
}

}  // namespace

TEST_CASE("nomination: victims terminating one by one, recreated pods never take the freed GPUs",
          "[preemption][nomination][regression]") {
  const LivelockRun r = run_livelock_scenario(true);
  CHECK(r.evictions == 4);          // exactly the four victims, once each
  CHECK(r.research_bindings == 0);  // nothing lower-ranked went onto the reserved resources
  REQUIRE(r.prod_nodes.size() == 4);
  // Bound in the cycle after the last victim is gone: victims finish in cycles 1..4.
  CHECK(r.cycles_to_place == 4);
  CHECK(std::count(r.prod_nodes.begin(), r.prod_nodes.end(), "h100-4") == 1);
}

TEST_CASE("nomination: without it the bug report's bind/preempt/recreate livelock appears",
          "[preemption][nomination][regression]") {
  // Documents what the regression test guards against: a world that does not nominate lets
  // research pods take each GPU a victim frees, and the preemptor evicts them again.
  const LivelockRun r = run_livelock_scenario(false);
  CHECK(r.research_bindings > 0);
  CHECK(r.evictions > 4);
}

TEST_CASE("nomination: who may use reserved resources, and when it is let go",
          "[preemption][nomination]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("low", 1);
  w.add_queue("mid", 5);
  w.add_queue("mid2", 5);
  w.add_queue("top", 20);
  for (const auto* v : {"v0", "v1"}) {
    w.add_group(v, "low", 1);
    w.add_pods(v, 1, res(1, 4));
    w.run_on(std::string(v) + "-0", "n1");
  }
  auto mg = w.add_group("m", "mid", 1, 1);
  w.add_pods("m", 1, res(1, 8));
  Scheduler s(with_preemption());
  auto d = s.schedule(w.snap, sec(10));
  REQUIRE(d.evictions.size() == 2);
  for (const auto& e : d.evictions) {
    CHECK(e.preemptor == "m");
    CHECK(e.node == "n1");
    REQUIRE(e.reservations.size() == 1);
    CHECK(e.reservations[0] == NodeReservation{"n1", res(1, 8)});
  }
  w.apply_graceful(d);
  REQUIRE(w.snap.nominated_groups().size() == 1);
  w.finish("v0-0");  // 4 GPUs free, 4 still held by the terminating v1-0: m waits

  SECTION("lower-ranked work sees the reservation as used, the nominated group uses it") {
    w.add_group("v2", "low", 1);
    w.add_pods("v2", 1, res(1, 4));  // lower queue priority
    w.add_group("o", "mid2", 1);
    w.add_pods("o", 1, res(1, 4));  // equal queue priority, another queue: does not outrank m
    w.add_group("later", "mid", 1, 1);
    w.add_pods("later", 1, res(1, 4));      // same queue, after m in the §8.5 order
    w.add_default_pod("plain", res(1, 4));  // default scheduler
    d = s.schedule(w.snap, sec(11));
    CHECK(d.empty());  // m waits for v1-0 without preempting again; nobody takes m's GPUs
    w.finish("v1-0");
    d = w.cycle(s, 12);
    REQUIRE(d.bindings.size() == 1);
    CHECK(w.node_of("m-0") == "n1");
    CHECK(w.snap.nominated_groups().empty());  // placed: the reservation ends
  }
  SECTION("work that outranks the group may use it; unusable, the group lets it go") {
    w.add_group("t", "top", 1);
    w.add_pods("t", 1, res(1, 2));
    w.add_group("later", "mid", 1, 1);
    w.add_pods("later", 1, res(1, 2));
    d = w.cycle(s, 11);
    CHECK(w.node_of("t-0") == "n1");  // top outranks m
    // m, next in the cycle, can no longer fit even once v1-0 is gone (t holds 2 of its 8 GPUs)
    // and has nothing left to preempt: it lets its reservation go, and the later group of its
    // queue gets the 2 GPUs in the same cycle.
    CHECK(d.evictions.empty());
    CHECK(w.node_of("later-0") == "n1");
    CHECK(w.node_of("m-0").empty());
  }
  SECTION("a group that cannot be tried (too few members) does not hold its reservation") {
    w.add_group("later", "mid", 1, 1);
    w.add_pods("later", 1, res(1, 4));
    mg.spec.min_member = 2;  // m now waits for a second member: the gang permit refuses it
    w.snap.upsert_pod_group(mg);
    REQUIRE(w.snap.nominated_groups().size() == 1);
    d = w.cycle(s, 11);
    CHECK(w.node_of("later-0") == "n1");  // m ranks first in "mid", yet its GPUs are let go
  }
}
