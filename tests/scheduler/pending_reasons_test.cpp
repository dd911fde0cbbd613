// Why is this job pending? The reason a cycle gives for each workload it leaves waiting, and its
// FailedScheduling-style message (docs/scheduler.md "Why is this job pending?").
#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;
namespace model = t9k::model;

namespace {

// The reason the cycle gave for the workload of pod `pod` (its group's, for a T9k pod).
const PendingReason* reason_for(const TestWorld& w, const Decisions& d, const std::string& pod) {
  const auto id = w.snap.find_pod(pod);
  REQUIRE(id);
  const auto& info = w.snap.pods()[static_cast<std::size_t>(*id)];
  for (const auto& r : d.pending) {
    if (info.group != kNone ? r.group == info.group : r.pod == *id) return &r;
  }
  return nullptr;
}

std::string message_for(const TestWorld& w, const Decisions& d, const std::string& pod) {
  const PendingReason* r = reason_for(w, d, pod);
  REQUIRE(r);
  return describe(*r, w.snap);
}

// `r` with `units` of the extended resource `name`.
ResourceList with(ResourceList r, const std::string& name, std::int64_t units) {
  r[name] = model::Quantity::from_units(units);
  return r;
}

SchedulerOptions strict_fifo() {
  SchedulerOptions o;
  o.backfill = BackfillPolicy::StrictFifo;
  return o;
}

}  // namespace

TEST_CASE("pending reasons: one per waiting workload, none for placed ones", "[pending]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_node("n2", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("fits", "q", 1);
  w.add_pods("fits", 1, res(1, 8));
  w.add_group("huge", "q", 1);
  w.add_pods("huge", 1, res(1, 16));
  Scheduler s;
  const auto d = w.cycle(s);
  CHECK(has_binding(d, "fits-0"));
  CHECK_FALSE(reason_for(w, d, "fits-0"));
  const PendingReason* r = reason_for(w, d, "huge-0");
  REQUIRE(r);
  CHECK(r->cause == PendingCause::Capacity);
  CHECK(r->nodes.nodes == 2);
  CHECK(r->nodes.gpu == 2);  // neither node has 16 GPUs free
  CHECK(describe(*r, w.snap) == "0/2 nodes are available: 2 insufficient nvidia.com/gpu");
}

// Table: each row builds a cluster and a waiting workload "w-0", and states the cause and the
// message the cycle gives for it (spec section in the name).
TEST_CASE("pending reasons: cause and message by situation", "[pending][spec]") {
  struct Row {
    const char* name;
    void (*build)(TestWorld&);
    SchedulerOptions options;
    PendingCause cause;
    const char* message;
  };
  const Row rows[] = {
      {"§8.7 quota: the gang's core does not fit in the queue's GPU quota",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_node("n2", res(64, 8));
         w.add_queue("production", 1, res(0, 8));
         w.add_group("w", "production", 2);
         w.add_pods("w", 2, res(1, 8));
       },
       {},
       PendingCause::Quota,
       "queue production at quota: nvidia.com/gpu 0/8 allocated, 16 more asked"},
      {"§8.7 quota: a one-pod workload behind the queue's running jobs",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_queue("q", 1, res(0, 4));
         w.add_group("r", "q", 1);
         w.add_pods("r", 1, res(1, 3));
         w.run_on("r-0", "n1");
         w.add_group("w", "q", 1);
         w.add_pods("w", 1, res(1, 2));
       },
       {},
       PendingCause::Quota,
       "queue q at quota: nvidia.com/gpu 3/4 allocated, 2 more asked"},
      {"§8.7 quota of CPUs: checked when the group is attempted (the fast skip looks at GPUs only)",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_queue("q", 1, res(4));
         w.add_group("w", "q", 1);
         w.add_pods("w", 1, res(8, 1));
       },
       {},
       PendingCause::Quota,
       "queue q at quota: cpu 0/4 allocated, 8 more asked"},
      {"§8.3 before §8.7: a gang short of pods in a queue at quota says it is short of pods",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_queue("q", 1, res(0, 8));
         w.add_group("r", "q", 1);
         w.add_pods("r", 1, res(1, 8));
         w.run_on("r-0", "n1");
         w.add_group("w", "q", 4);
         w.add_pods("w", 2, res(1, 1));
       },
       {},
       PendingCause::GangMembers,
       "gang not ready: 2 of minMember 4 pods exist"},
      {"§8.4 gang: two of three 8-GPU pods fit, the third finds no node",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_node("n2", res(64, 8));
         w.add_queue("q", 1);
         w.add_group("w", "q", 3);
         w.add_pods("w", 3, res(1, 8));
       },
       {},
       PendingCause::Capacity,
       "gang of 3 pods, 2 placed: 0/2 nodes are available: 2 insufficient nvidia.com/gpu"},
      {"node tallies: one node short of memory and GPUs, one not ready",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8, 16));
         auto& down = w.add_node("n2", res(64, 8, 512));
         down.ready = false;
         w.snap.upsert_node(down);
         w.add_node("n3", res(64, 8, 512));
         w.add_queue("q", 1);
         w.add_group("r", "q", 1);
         w.add_pods("r", 1, res(1, 4));
         w.run_on("r-0", "n3");
         w.add_group("w", "q", 1);
         w.add_pods("w", 1, res(1, 8, 100));
       },
       {},
       PendingCause::Capacity,
       "0/3 nodes are available: 1 insufficient nvidia.com/gpu, 1 insufficient memory, 1 not ready "
       "or cordoned"},
      {"node tallies name the extended resource the nodes lack, as kube-scheduler does",
       [](TestWorld& w) {
         w.add_node("n1", with(res(64), "amd.com/gpu", 4));
         w.add_node("n2", with(res(64), "amd.com/gpu", 4));
         w.add_queue("q", 1);
         w.add_group("w", "q", 1);
         w.add_pods("w", 1, with(res(1), "amd.com/gpu", 8));
       },
       {},
       PendingCause::Capacity,
       "0/2 nodes are available: 2 insufficient amd.com/gpu"},
      {"node tallies: nodes short of different extended resources are counted once each",
       [](TestWorld& w) {
         w.add_node("n1", with(with(res(64), "amd.com/gpu", 8), "rdma/hca", 0));
         w.add_node("n2", with(with(res(64), "amd.com/gpu", 0), "rdma/hca", 1));
         w.add_node("n3", with(with(res(64), "amd.com/gpu", 0), "rdma/hca", 0));
         w.add_queue("q", 1);
         w.add_group("w", "q", 1);
         w.add_pods("w", 1, with(with(res(1), "amd.com/gpu", 8), "rdma/hca", 1));
       },
       {},
       PendingCause::Capacity,
       "0/3 nodes are available: 3 insufficient extended resources"},
      {"constraints: no node matches the pod's nodeSelector, one is down",
       [](TestWorld& w) {
         auto& down = w.add_node("down", res(64, 8), "", "", {{"zone", "x"}});
         down.ready = false;
         w.snap.upsert_node(down);
         w.add_node("up", res(64, 8), "", "", {{"zone", "y"}});
         w.add_queue("q", 1);
         w.add_group("w", "q", 1);
         auto& p = w.add_pod("w-0", "w", res(1, 1));
         p.node_selector = {{"zone", "x"}};
         w.snap.upsert_pod(p);
       },
       {},
       PendingCause::Constraints,
       "0/2 nodes are available: 1 not ready or cordoned, 1 not matching the pod's node selector"},
      {"§8.3 gang not ready: fewer pods than minMember",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_queue("q", 1);
         w.add_group("w", "q", 4);
         w.add_pods("w", 2, res(1, 1));
       },
       {},
       PendingCause::GangMembers,
       "gang not ready: 2 of minMember 4 pods exist"},
      {"§11 Q11 strict FIFO: a small job waits behind a blocked one",
       [](TestWorld& w) {
         w.add_node("n1", res(64, 8));
         w.add_queue("q", 1);
         w.add_group("big", "q", 1);
         w.add_pods("big", 1, res(1, 16));
         w.add_group("w", "q", 1);
         w.add_pods("w", 1, res(1, 1));
       },
       strict_fifo(), PendingCause::QueueOrder,
       "strict FIFO: queue q waits for big, which cannot be placed"},
  };
  for (const auto& row : rows) {
    SECTION(row.name) {
      TestWorld w;
      row.build(w);
      Scheduler s(row.options);
      const auto d = w.cycle(s);
      CHECK_FALSE(has_binding(d, "w-0"));
      const PendingReason* r = reason_for(w, d, "w-0");
      REQUIRE(r);
      CHECK(r->cause == row.cause);
      CHECK(describe(*r, w.snap) == row.message);
    }
  }
}

TEST_CASE("pending reasons: skipped and memoised failures report what blocks them", "[pending]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_node("n2", res(64, 8));
  w.add_queue("q", 1, res(0, 64));
  // Three equal groups, all skipped without an attempt (no node has 16 free GPUs): each must
  // still say why.
  for (const char* g : {"a", "b", "c"}) {
    w.add_group(g, "q", 1);
    w.add_pods(g, 1, res(1, 16));
  }
  // Default-scheduler pods of one shape: the second fails from the cycle's memo.
  w.add_default_pod("d1", res(1, 9));
  w.add_default_pod("d2", res(1, 9));
  Scheduler s;
  const auto d = w.cycle(s);
  for (const char* p : {"a-0", "b-0", "c-0", "d1", "d2"}) {
    INFO(p);
    CHECK(message_for(w, d, p) == "0/2 nodes are available: 2 insufficient nvidia.com/gpu");
  }
  // The queue at quota: later groups are skipped on quota and say so.
  TestWorld full;
  full.add_node("n1", res(64, 8));
  full.add_node("n2", res(64, 8));
  full.add_queue("q", 1, res(0, 8));
  full.add_group("r", "q", 1);
  full.add_pods("r", 1, res(1, 8));
  full.run_on("r-0", "n1");
  for (const char* g : {"x", "y"}) {
    full.add_group(g, "q", 1);
    full.add_pods(g, 1, res(1, 4));
  }
  Scheduler s2;
  const auto e = full.cycle(s2);
  CHECK(message_for(full, e, "x-0") ==
        "queue q at quota: nvidia.com/gpu 8/8 allocated, 4 more asked");
  CHECK(message_for(full, e, "y-0") ==
        "queue q at quota: nvidia.com/gpu 8/8 allocated, 4 more asked");
}

TEST_CASE("pending reasons: a preemptor waiting for its victims says so (§8.6)",
          "[pending][preemption]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("low", 1);
  w.add_queue("high", 2);
  w.add_group("victim", "low", 1);
  w.add_pods("victim", 1, res(1, 8));
  w.run_on("victim-0", "n1");
  w.add_group("w", "high", 1);
  w.add_pods("w", 1, res(1, 8));
  SchedulerOptions o;
  o.preemption = true;
  Scheduler s(o);
  const Decisions d = s.schedule(w.snap, sec(1000));
  w.apply_graceful(d);
  CHECK(has_eviction(d, "victim-0"));
  const PendingReason* r = reason_for(w, d, "w-0");
  REQUIRE(r);
  CHECK(r->cause == PendingCause::Preempting);
  CHECK(describe(*r, w.snap) ==
        "preempting lower-priority pods or waiting for terminating ones; 0/1 nodes are available: "
        "1 insufficient "
        "nvidia.com/gpu");
  // Next cycle: the victim still terminates and the preemptor waits for it, for the same reason,
  // which is not repeated.
  const Decisions again = s.schedule(w.snap, sec(1001));
  CHECK(again.bindings.empty());
  CHECK_FALSE(reason_for(w, again, "w-0"));
}

TEST_CASE("pending reasons: unchanged ones are not repeated; changes and new waits are",
          "[pending]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_node("n2", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("huge", "q", 1);
  w.add_pods("huge", 1, res(1, 12));
  Scheduler s;
  const auto first = w.cycle(s);
  const PendingReason* r = reason_for(w, first, "huge-0");
  REQUIRE(r);
  CHECK_FALSE(r->continued);          // a new wait
  CHECK(w.cycle(s).pending.empty());  // the same reason: not repeated
  // A third node: the reason's counts change, and it is reported as a continued wait.
  w.add_node("n3", res(64, 8));
  const auto third = w.cycle(s);
  r = reason_for(w, third, "huge-0");
  REQUIRE(r);
  CHECK(r->continued);
  CHECK(describe(*r, w.snap) == "0/3 nodes are available: 3 insufficient nvidia.com/gpu");
  // Its pod goes away (the group no longer waits), then comes back with the same reason: a new
  // wait, reported again.
  w.snap.remove_pod("huge-0");
  w.pods.erase("huge-0");
  CHECK(w.cycle(s).pending.empty());
  w.add_pod("huge-0", "huge", res(1, 12));
  const auto again = w.cycle(s);
  r = reason_for(w, again, "huge-0");
  REQUIRE(r);
  CHECK_FALSE(r->continued);
}

// A deep queue of gangs of one shape (issue 49): after the first gang's trial fails having placed
// what fits, the next ones of the same shape are answered from that trial (Scheduler's uniform
// gang memo) until something is placed; each still reports its own size and what the trial
// placed, as a trial of its own would.
TEST_CASE("pending reasons: gangs of one shape answered from the first trial", "[pending][spec]") {
  TestWorld w;
  for (const char* n : {"n1", "n2", "n3"}) w.add_node(n, res(64, 8));  // 24 GPUs
  w.add_queue("q", 1);
  const std::pair<const char*, int> gangs[] = {
      {"g30", 30}, {"g27", 27}, {"g25", 25}, {"small", 3}, {"g40", 40}};
  for (const auto& [name, size] : gangs) {
    // g27 names its pods' role and the role's minimum (§8.3/§8.4: the core is still 27 pods).
    if (std::string(name) == "g27") {
      w.add_group(name, "q", size, 0, {{"worker", size}});
      w.add_pods(name, size, res(1, 1), "worker");
    } else {
      w.add_group(name, "q", size);
      w.add_pods(name, size, res(1, 1));
    }
  }
  Scheduler s;
  const auto placed = [&](const Decisions& d, const char* pod) {
    const PendingReason* r = reason_for(w, d, pod);
    REQUIRE(r);
    CHECK(r->cause == PendingCause::Capacity);
    return std::pair{r->pods, r->placed};
  };
  // §8.4 / §8.5: skip-and-continue; a gang that cannot be placed whole places nothing.
  const auto d1 = w.cycle(s);
  CHECK(placed(d1, "g30-0") == std::pair{30, 24});
  CHECK(placed(d1, "g27-worker0") == std::pair{27, 24});
  CHECK(placed(d1, "g25-0") == std::pair{25, 24});
  CHECK(has_binding(d1, "small-0"));
  CHECK(has_binding(d1, "small-2"));
  CHECK(placed(d1, "g40-0") == std::pair{40, 21});  // after small took 3: a trial of its own
  CHECK(d1.bindings.size() == 3);
  // Next cycle: 21 free for everyone; g40's reason is unchanged, so it is not reported again.
  const auto d2 = w.cycle(s);
  CHECK(d2.bindings.empty());
  CHECK(placed(d2, "g30-0") == std::pair{30, 21});
  CHECK(placed(d2, "g27-worker0") == std::pair{27, 21});
  CHECK(placed(d2, "g25-0") == std::pair{25, 21});
  CHECK_FALSE(reason_for(w, d2, "g40-0"));
  // The small gang finishes: its pending entry is long gone, the others' stay in order.
  for (int i = 0; i < 3; ++i) w.finish("small-" + std::to_string(i));
  const auto d3 = w.cycle(s);
  CHECK(placed(d3, "g30-0") == std::pair{30, 24});
  CHECK(placed(d3, "g40-0") == std::pair{40, 24});
}

// The walk past groups whose capacity reason stands (issue 49, the cycle's skip tree): a full
// cluster reports each waiting group once; unchanged cycles report nothing; a group arriving at
// the end, one arriving ahead of the others (higher priority) and a new node are each seen.
TEST_CASE("pending reasons: a full cluster's waiting groups, cycle after cycle",
          "[pending][spec]") {
  TestWorld w;
  w.add_node("n1", res(64, 8));
  w.add_queue("q", 1);
  w.add_group("hog", "q", 1);
  w.add_pods("hog", 1, res(1, 8));
  w.add_group("a", "q", 2);
  w.add_pods("a", 2, res(1, 1));
  w.add_group("b", "q", 1);
  w.add_pods("b", 1, res(1, 4));
  w.add_group("c", "q", 3);
  w.add_pods("c", 3, res(1, 1));
  Scheduler s;
  const auto capacity = [&](const Decisions& d, const char* pod, int nodes, int pods) {
    const PendingReason* r = reason_for(w, d, pod);
    REQUIRE(r);
    CHECK(r->cause == PendingCause::Capacity);
    CHECK(r->nodes.nodes == nodes);
    CHECK(r->pods == pods);
  };
  const auto d1 = w.cycle(s);  // §8.5: hog first; then no GPU is left for anyone
  CHECK(has_binding(d1, "hog-0"));
  capacity(d1, "a-0", 1, 2);
  capacity(d1, "b-0", 1, 1);
  capacity(d1, "c-0", 1, 3);
  CHECK(d1.pending.size() == 3);
  CHECK(w.cycle(s).pending.empty());  // nothing changed: nothing reported again
  w.add_group("d", "q", 1);           // at the end of the queue
  w.add_pods("d", 1, res(1, 1));
  const auto d3 = w.cycle(s);
  CHECK(d3.pending.size() == 1);
  capacity(d3, "d-0", 1, 1);
  w.add_group("e", "q", 2, 10);  // §8.5: a higher priority goes ahead of the others
  w.add_pods("e", 2, res(1, 2));
  const auto d4 = w.cycle(s);
  CHECK(d4.pending.size() == 1);
  capacity(d4, "e-0", 1, 2);
  CHECK(w.cycle(s).pending.empty());
  // A second node: e (4 GPUs), a (2) and c's... c needs 3 with 2 left: it places 2 and fails.
  w.add_node("n2", res(64, 8));
  const auto d6 = w.cycle(s);
  CHECK(has_binding(d6, "e-0"));
  CHECK(has_binding(d6, "a-1"));
  CHECK_FALSE(has_binding(d6, "b-0"));  // 4 GPUs: only 2 left after e and a
  const PendingReason* c = reason_for(w, d6, "c-0");
  REQUIRE(c);
  CHECK(c->pods == 3);
  CHECK(c->placed == 2);
  CHECK(has_binding(d6, "d-0"));  // skip-and-continue: the last GPU
  capacity(d6, "b-0", 2, 1);      // every node now short of 4 free GPUs
  // One GPU is left (d took one): b's reason stands, c now places 1 of its 3 and says so.
  const auto d7 = w.cycle(s);
  CHECK(d7.bindings.empty());
  REQUIRE(d7.pending.size() == 1);
  c = reason_for(w, d7, "c-0");
  REQUIRE(c);
  CHECK(c->placed == 1);
}
