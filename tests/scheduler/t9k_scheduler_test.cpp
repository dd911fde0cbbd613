// The T9k scheduler: gang, roles, quota, closed queue, maxDuration, ordering, backfill,
// placement (spec §8, §11).
#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;
namespace model = t9k::model;

TEST_CASE("gang: all-or-nothing for minMember (§8.4)", "[t9k][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_node("n2", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("big", "q", 5);
  w.add_pods("big", 5, res(1, 4));  // 20 GPUs > 16: nothing may be bound
  Scheduler s;
  auto d = w.cycle(s);
  CHECK(d.bindings.empty());
  CHECK(w.bound_in("big") == 0);
  w.add_group("fits", "q", 4);
  w.add_pods("fits", 4, res(1, 4));
  d = w.cycle(s);
  CHECK(d.bindings.size() == 4);
  CHECK(w.bound_in("fits") == 4);
  CHECK(w.bound_in("big") == 0);
}

TEST_CASE("gang: nothing is placed before minMember pods exist (§8.3)", "[t9k][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("g", "q", 3);
  w.add_pods("g", 2, res(1, 1));
  Scheduler s;
  CHECK(w.cycle(s).bindings.empty());
  w.add_pod("g-2", "g", res(1, 1));
  CHECK(w.cycle(s).bindings.size() == 3);
}

TEST_CASE("gang: role minima must hold and are placed in the core (§8.3)", "[t9k][gang][roles]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("job", "q", 3, 0, {{"master", 1}, {"worker", 2}});
  w.add_pods("job", 3, res(1, 1), "worker");  // three workers, no master yet
  Scheduler s;
  CHECK(w.cycle(s).bindings.empty());  // total reached, role "master" not
  w.add_pod("job-master0", "job", res(1, 1), "master");
  const auto d = w.cycle(s);
  CHECK(has_binding(d, "job-master0"));  // the master is in the minMember core
  CHECK(d.bindings.size() == 4);         // the third worker is surplus, placed after
}

TEST_CASE("gang: elastic surplus placed one by one after the core (§8.4, §11 Q8)", "[t9k][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 3));
  w.add_queue("q", 1);
  w.add_group("el", "q", 2);
  w.add_pods("el", 4, res(1, 1));
  Scheduler s;
  const auto d = w.cycle(s);
  CHECK(d.bindings.size() == 3);  // core of 2 + one surplus pod that fits
  CHECK(w.bound_in("el") == 3);
}

TEST_CASE("gang: a running group places replacement pods individually (§11 Q10)", "[t9k][gang]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("job", "q", 5);
  w.add_pods("job", 3, res(1, 2));
  for (int i = 0; i < 3; ++i) w.run_on("job-" + std::to_string(i), "n1");
  // Two members were lost and recreated; there is room (2 GPUs) for one of them only.
  w.add_pod("job-3", "job", res(1, 2));
  w.add_pod("job-4", "job", res(1, 2));
  Scheduler s;
  const auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);  // a gang trial of the two would have placed none
  CHECK(d.bindings[0].pod == "job-3");
}

TEST_CASE("quota gates scheduling by default, rejects at admission as an option (§8.7, §11 Q14)",
          "[t9k][quota]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("q", 1, res(0, 4));  // quota: 4 GPUs
  w.add_group("a", "q", 1);
  w.add_pods("a", 1, res(1, 3));
  w.add_group("b", "q", 1);
  w.add_pods("b", 1, res(1, 2));
  Scheduler gate;
  const auto d = w.cycle(gate);
  CHECK(has_binding(d, "a-0"));
  CHECK_FALSE(has_binding(d, "b-0"));  // 3 + 2 > 4: waits although the node has room
  const AdmissionRequest req{"c", "q", res(1, 2)};
  CHECK_FALSE(gate.admit(w.snap, req).has_value());
  SchedulerOptions o;
  o.quota_mode = QuotaMode::RejectAtAdmission;
  Scheduler reject(o);
  const auto r = reject.admit(w.snap, req);
  REQUIRE(r.has_value());
  CHECK(r->reason == RejectReason::QuotaExceeded);
  CHECK(r->message.find("nvidia.com/gpu") != std::string::npos);
  CHECK_FALSE(reject.admit(w.snap, AdmissionRequest{"d", "q", res(1, 0)}).has_value());
}

TEST_CASE("closed queue: new PodGroups refused, admitted ones continue (§8.8, §11 Q15)",
          "[t9k][closed]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  auto q = w.add_queue("q", 1);
  w.add_group("admitted", "q", 2);
  w.add_pods("admitted", 2, res(1, 1));
  q.spec.closed = true;
  w.snap.upsert_queue(q);
  Scheduler s;
  const auto r = s.admit(w.snap, AdmissionRequest{"new", "q", res(1, 1)});
  REQUIRE(r.has_value());
  CHECK(r->reason == RejectReason::QueueClosed);
  CHECK(w.cycle(s).bindings.size() == 2);  // the admitted group is still scheduled
  const auto nf = s.admit(w.snap, AdmissionRequest{"x", "nope", {}});
  REQUIRE(nf.has_value());
  CHECK(nf->reason == RejectReason::QueueNotFound);
}

TEST_CASE("maxDuration: pods whose age reached the limit are evicted (§8.8, §11 Q12)",
          "[t9k][maxduration]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  auto q = w.add_queue("q", 1);
  q.spec.max_duration = t9k::kernel::seconds(100);
  w.snap.upsert_queue(q);
  w.add_group("g", "q", 1);
  w.add_pods("g", 1, res(1, 1));  // created at t=2
  w.run_on("g-0", "n1");
  w.add_group("h", "q", 1);
  w.add_pods("h", 1, res(1, 1));  // created at t=4, pending
  Scheduler s;
  auto d = s.schedule(w.snap, sec(101));
  CHECK(d.evictions.empty());  // age 99 s
  d = s.schedule(w.snap, sec(102));
  REQUIRE(d.evictions.size() == 1);
  CHECK(d.evictions[0].pod == "g-0");
  CHECK(d.evictions[0].reason == model::DeletionReason::MaxDuration);
  d = s.schedule(w.snap, sec(104));
  CHECK(d.evictions.size() == 2);      // the pending pod's age counts from creation too
  CHECK_FALSE(has_binding(d, "h-0"));  // an expired pod is not bound in the same cycle
}

TEST_CASE("ordering: higher queue priority first, even with a larger share (§8.5)",
          "[t9k][order]") {
  TestWorld w;
  w.add_node("n1", res(64, 1));
  w.add_queue("low", 1);
  w.add_queue("high", 2, res(0, 1));
  w.add_group("l", "low", 1);
  w.add_pods("l", 1, res(1, 1));
  w.add_group("h", "high", 1);
  w.add_pods("h", 1, res(1, 1));
  Scheduler s;
  const auto d = w.cycle(s);
  CHECK(has_binding(d, "h-0"));
  CHECK_FALSE(has_binding(d, "l-0"));
}

TEST_CASE("ordering: equal priority by dominant resource share (§8.5 worked example, §11 Q18)",
          "[t9k][order][drf]") {
  struct Row {
    const char* name;
    DrfDenominator denominator;
    // queue A: quota and usage; queue B: quota and usage (cpu units, memory GiB)
    std::int64_t qa_cpu, qa_mem, ua_cpu, ua_mem, qb_cpu, qb_mem, ub_cpu, ub_mem;
    const char* winner;
  };
  const Row rows[] = {
      // §8.5: A {cpu 3/6, mem 5/8} -> 5/8; B {cpu 3/8, mem 1/2} -> 1/2: B first.
      {"worked example", DrfDenominator::Quota, 6, 8, 3, 5, 8, 2, 3, 1, "b"},
      // Quota denominator: A 4/8 < B 2/2, A first; cluster capacity (100 cpu): B 2 < A 4, B first.
      {"quota denominator", DrfDenominator::Quota, 8, 0, 4, 0, 2, 0, 2, 0, "a"},
      {"cluster capacity denominator", DrfDenominator::ClusterCapacity, 8, 0, 4, 0, 2, 0, 2, 0,
       "b"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.name) {
      TestWorld w;
      w.add_node("busy", res(100, 0, 64));
      // Room for exactly one of the two pending pods, in a resource no quota names.
      ResourceList one;
      one["example.com/slot"] = model::Quantity::from_units(1);
      w.add_node("slot", one);
      w.add_queue("A", 1, res(row.qa_cpu, 0, row.qa_mem));
      w.add_queue("B", 1, res(row.qb_cpu, 0, row.qb_mem));
      w.add_group("ra", "A", 1);
      w.add_pods("ra", 1, res(row.ua_cpu, 0, row.ua_mem));
      w.run_on("ra-0", "busy");
      w.add_group("rb", "B", 1);
      w.add_pods("rb", 1, res(row.ub_cpu, 0, row.ub_mem));
      w.run_on("rb-0", "busy");
      w.add_group("a", "A", 1);
      w.add_pods("a", 1, one);
      w.add_group("b", "B", 1);
      w.add_pods("b", 1, one);
      SchedulerOptions o;
      o.drf_denominator = row.denominator;
      Scheduler s(o);
      const auto d = w.cycle(s);
      REQUIRE(d.bindings.size() == 1);
      CHECK(d.bindings[0].pod == std::string(row.winner) + "-0");
    }
  }
}

TEST_CASE("ordering: inside a queue higher PodGroup priority, then earlier creation (§8.5)",
          "[t9k][order]") {
  TestWorld w;
  w.add_node("n1", res(64, 2));
  w.add_queue("q", 1);
  w.add_group("first", "q", 1, 0);
  w.add_group("second", "q", 1, 0);
  w.add_group("urgent", "q", 1, 9);
  w.add_pods("second", 1, res(1, 1));
  w.add_pods("first", 1, res(1, 1));
  w.add_pods("urgent", 1, res(1, 1));
  Scheduler s;
  const auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 2);
  CHECK(d.bindings[0].pod == "urgent-0");
  CHECK(d.bindings[1].pod == "first-0");  // group created before "second"
}

TEST_CASE("backfill: skip-and-continue by default, strict FIFO as an option (§11 Q11)",
          "[t9k][backfill]") {
  for (const auto policy : {BackfillPolicy::SkipAndContinue, BackfillPolicy::StrictFifo}) {
    TestWorld w;
    w.add_node("n1", res(64, 4));
    w.add_queue("q", 1);
    w.add_group("head", "q", 2);
    w.add_pods("head", 2, res(1, 4));  // does not fit
    w.add_group("small", "q", 1);
    w.add_pods("small", 1, res(1, 2));
    SchedulerOptions o;
    o.backfill = policy;
    Scheduler s(o);
    const auto d = w.cycle(s);
    if (policy == BackfillPolicy::SkipAndContinue)
      CHECK(has_binding(d, "small-0"));
    else
      CHECK(d.bindings.empty());
  }
}

TEST_CASE("placement: pod and queue nodeSelector, readiness, extended resources (§8.2)",
          "[t9k][filter]") {
  TestWorld w;
  w.add_node("a100", res(64, 8), "", "", {{"gpu", "a100"}});
  w.add_node("h100", res(64, 8), "", "", {{"gpu", "h100"}});
  auto q = w.add_queue("h-only", 1);
  q.spec.node_selector = model::LabelSelector{{{"gpu", "h100"}}, {}};
  w.snap.upsert_queue(q);
  w.add_queue("any", 1);
  w.add_group("qsel", "h-only", 1);
  w.add_pods("qsel", 1, res(1, 1));
  w.add_group("psel", "any", 1);
  auto& p = w.add_pod("psel-0", "psel", res(1, 1));
  p.node_selector = {{"gpu", "a100"}};
  w.snap.upsert_pod(p);
  w.add_group("none", "any", 1);
  auto& n = w.add_pod("none-0", "none", res(1, 1));
  n.node_selector = {{"gpu", "v100"}};
  w.snap.upsert_pod(n);
  Scheduler s;
  auto d = w.cycle(s);
  CHECK(w.node_of("qsel-0") == "h100");
  CHECK(w.node_of("psel-0") == "a100");
  CHECK(w.node_of("none-0").empty());

  TestWorld v;
  auto& down = v.add_node("down", res(64, 8));
  down.ready = false;
  v.snap.upsert_node(down);
  auto& cordoned = v.add_node("cordoned", res(64, 8));
  cordoned.unschedulable = true;
  v.snap.upsert_node(cordoned);
  ResourceList rdma = res(1);
  rdma["rdma/hca"] = model::Quantity::from_units(1);
  ResourceList big = res(64, 8);
  big["rdma/hca"] = model::Quantity::from_units(1);
  v.add_node("plain", res(64, 8));
  v.add_node("rdma", big);
  v.add_queue("q", 1);
  v.add_group("g", "q", 1);
  v.add_pods("g", 1, res(1, 1));
  v.add_group("r", "q", 1);
  v.add_pods("r", 1, rdma);
  v.cycle(s);
  CHECK(v.node_of("r-0") == "rdma");  // only node with the extended resource
  CHECK(v.node_of("g-0") != "down");
  CHECK(v.node_of("g-0") != "cordoned");
  CHECK_FALSE(v.node_of("g-0").empty());
}

TEST_CASE("placement: bin-pack by default, spread as an option", "[t9k][score]") {
  for (const bool spread : {false, true}) {
    TestWorld w;
    w.add_node("n1", res(64, 8));
    w.add_node("n2", res(64, 8));
    w.add_queue("q", 1);
    w.add_group("a", "q", 1);
    w.add_pods("a", 1, res(1, 2));
    w.add_group("b", "q", 1);
    w.add_pods("b", 1, res(1, 2));
    SchedulerOptions o;
    if (spread) o.scores = {{"spread", 1}};
    Scheduler s(o);
    w.cycle(s);
    if (spread)
      CHECK(w.node_of("a-0") != w.node_of("b-0"));
    else
      CHECK(w.node_of("a-0") == w.node_of("b-0"));
  }
}

TEST_CASE("placement: topology-aware score keeps a gang under one rack", "[t9k][score][topology]") {
  for (const bool topology : {false, true}) {
    TestWorld w;
    w.add_node("a", res(64, 8), "r1", "s1");
    w.add_node("b", res(64, 8), "r2", "s2");
    w.add_node("c", res(64, 8), "r1", "s1");
    w.add_queue("q", 1);
    w.add_group("g", "q", 2);
    w.add_pods("g", 2, res(1, 8));
    SchedulerOptions o;
    o.scores = topology ? std::vector<WeightedScore>{{"bin-pack", 1}, {"topology", 1}}
                        : std::vector<WeightedScore>{{"bin-pack", 1}};
    Scheduler s(o);
    w.cycle(s);
    const auto& t = w.snap.topology();
    const auto r0 = t.rack_of(w.node_of("g-0"));
    const auto r1 = t.rack_of(w.node_of("g-1"));
    REQUIRE(r0.has_value());
    REQUIRE(r1.has_value());
    if (topology)
      CHECK(*r0 == *r1);
    else
      CHECK(*r0 != *r1);  // without it, the tie goes to the next node in index order
  }
}

TEST_CASE("finished PodGroup: its pending pods get nothing more, until the flag is cleared (§8.3)",
          "[t9k][finished]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("q", 1);
  // An elastic group (minMember 1) whose job succeeded with its second pod still pending.
  auto g = w.add_group("done", "q", 1);
  w.add_pods("done", 2, res(1, 8));
  w.run_on("done-0", "n1");
  g.spec.finished = true;
  w.snap.upsert_pod_group(g);
  w.finish("done-0");  // the node is free again
  w.add_group("next", "q", 1);
  w.add_pods("next", 1, res(1, 8));
  Scheduler s;
  const auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].pod == "next-0");  // not the finished group's pod, though it is older
  CHECK(w.bound_in("done") == 0);
  // Cleared (not something the world does, but the snapshot's indexes follow the flag both ways).
  w.finish("next-0");
  g.spec.finished = false;
  w.snap.upsert_pod_group(g);
  CHECK(w.cycle(s).bindings.size() == 1);
  CHECK(w.bound_in("done") == 1);
}
