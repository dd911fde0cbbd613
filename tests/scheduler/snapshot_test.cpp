// ClusterSnapshot: the incrementally maintained view (issue 5 "Scale", the world's contract).
#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;

TEST_CASE("snapshot: node free resources and the free-GPU index follow bind, evict, release",
          "[snapshot]") {
  TestWorld w;
  w.add_node("n1", res(32, 8, 256));
  w.add_node("n2", res(32, 4, 256));
  w.add_queue("q", 1);
  w.add_group("g", "q", 1);
  w.add_pod("p", "g", res(4, 3));
  const auto& s = w.snap;
  const NodeId n1 = *s.find_node("n1");
  CHECK(s.nodes_by_free_gpu().begin()->second == *s.find_node("n2"));  // 4 free < 8 free
  w.snap.bind("p", "n1");
  CHECK(s.nodes()[static_cast<std::size_t>(n1)].free(kDimGpu) == 5000);
  CHECK(s.nodes_by_free_gpu().begin()->second == *s.find_node("n2"));
  CHECK(at(s.queues()[static_cast<std::size_t>(*s.find_queue("q"))].allocated, kDimGpu) == 3000);
  w.snap.evict("p");  // terminating: still holds the node (§8.6 victims shut down)
  CHECK(s.nodes()[static_cast<std::size_t>(n1)].free(kDimGpu) == 5000);
  CHECK(s.nodes_with_terminating().count(n1) == 1);
  w.snap.release("p", false);
  CHECK(s.nodes()[static_cast<std::size_t>(n1)].free(kDimGpu) == 8000);
  CHECK(s.nodes_with_terminating().empty());
  CHECK(at(s.queues()[static_cast<std::size_t>(*s.find_queue("q"))].allocated, kDimGpu) == 0);
}

// The world keeps the ids upsert_pod_group and upsert_pod return and hands them back as hints
// (sim::StoreWatcher); a hint naming another object, or none, must not be trusted.
TEST_CASE("snapshot: a hint is used only when it names that very key", "[snapshot]") {
  TestWorld w;
  w.add_node("n1", res(32, 8, 256));
  w.add_queue("q", 1);
  const t9k::model::PodGroup g = w.add_group("g", "q", 1);
  w.add_group("h", "q", 1);
  const GroupId gid = *w.snap.find_group("g");
  const GroupId hid = *w.snap.find_group("h");
  CHECK(w.snap.upsert_pod_group(g, hid) == gid);    // another group's id
  CHECK(w.snap.upsert_pod_group(g, 12345) == gid);  // no group's id
  CHECK(w.snap.upsert_pod_group(g, gid) == gid);
  const t9k::model::Pod p = w.add_pod("p", "g", res(4, 2));
  w.add_pod("r", "h", res(4, 2));
  const PodId pid = *w.snap.find_pod("p");
  const PodId rid = *w.snap.find_pod("r");
  CHECK(w.snap.upsert_pod(p, hid) == pid);  // h's id as p's group hint: p stays in g
  const auto& pods = w.snap.pods();
  CHECK(pods[static_cast<std::size_t>(pid)].group == gid);
  CHECK(w.snap.groups()[static_cast<std::size_t>(hid)].pods == absl::InlinedVector<PodId, 2>{rid});
  w.snap.bind("p", "n1");
  w.snap.bind("r", "n1");
  w.snap.release("p", true, rid);  // r's id for p: p is released, r still holds its GPUs
  CHECK(pods[static_cast<std::size_t>(pid)].state == PodState::Succeeded);
  CHECK(pods[static_cast<std::size_t>(rid)].state == PodState::Bound);
  w.snap.evict("r", rid);
  CHECK(pods[static_cast<std::size_t>(rid)].state == PodState::Terminating);
  w.snap.remove_pod_group("h", gid);  // g's id for h: h goes, g stays
  CHECK(w.snap.groups()[static_cast<std::size_t>(gid)].present);
  CHECK_FALSE(w.snap.groups()[static_cast<std::size_t>(hid)].present);
}

TEST_CASE("snapshot: pending groups ordered by priority then creation (§8.5, §11 Q20)",
          "[snapshot]") {
  TestWorld w;
  w.add_queue("q", 1);
  w.add_group("old", "q", 1, 0, {}, 10);
  w.add_group("new-high", "q", 1, 5, {}, 30);
  w.add_group("mid", "q", 1, 0, {}, 20);
  for (const auto* g : {"old", "new-high", "mid"}) w.add_pod(std::string(g) + "-0", g, res(1));
  const auto& q = w.snap.queues()[static_cast<std::size_t>(*w.snap.find_queue("q"))];
  std::vector<std::string> order;
  for (const auto& e : q.pending_index)
    if (!e.dead)
      order.push_back(w.snap.groups()[static_cast<std::size_t>(group_of(e.key))].key.str());
  CHECK(order == std::vector<std::string>{"new-high", "old", "mid"});
  // A resumed job's pods are new, its PodGroup (and creation time) is the same: it keeps its rank.
  w.snap.remove_pod("old-0");
  w.add_pod("old-0b", "old", res(1));
  order.clear();
  for (const auto& e : q.pending_index)
    if (!e.dead)
      order.push_back(w.snap.groups()[static_cast<std::size_t>(group_of(e.key))].key.str());
  CHECK(order == std::vector<std::string>{"new-high", "old", "mid"});
}

TEST_CASE("snapshot: equal creation times go in creation order, not by recycled ids (§8.5)",
          "[snapshot]") {
  TestWorld w;
  w.add_queue("q", 1);
  // Three groups come and go, leaving their ids free (reused last-freed first).
  for (const char* g : {"done-a", "done-b", "done-c"}) w.add_group(g, "q", 1, 0, {}, 1);
  for (const char* g : {"done-a", "done-b", "done-c"}) w.snap.remove_pod_group(g);
  // Four groups created at one instant, numbered by the store in submission order.
  std::uint64_t sequence = 100;
  for (const char* g : {"tie-a", "tie-b", "tie-c", "tie-d"}) {
    t9k::model::PodGroup pg;
    pg.metadata.name = g;
    pg.metadata.creation_timestamp = sec(50);
    pg.metadata.creation_sequence = ++sequence;
    pg.spec.queue = "q";
    pg.spec.min_member = 1;
    w.snap.upsert_pod_group(pg);
    w.add_pod(std::string(g) + "-0", g, res(1));
  }
  const auto& q = w.snap.queues()[static_cast<std::size_t>(*w.snap.find_queue("q"))];
  std::vector<std::string> order;
  for (const auto& e : q.pending_index)
    if (!e.dead)
      order.push_back(w.snap.groups()[static_cast<std::size_t>(group_of(e.key))].key.str());
  CHECK(order == std::vector<std::string>{"tie-a", "tie-b", "tie-c", "tie-d"});
  // The ids were recycled in another order: they alone would have decided differently.
  const auto id = [&](const char* g) { return *w.snap.find_group(g); };
  CHECK_FALSE(
      (id("tie-a") < id("tie-b") && id("tie-b") < id("tie-c") && id("tie-c") < id("tie-d")));
}

TEST_CASE("snapshot: objects in any order, bare pods, stand-in entries", "[snapshot]") {
  TestWorld w;
  w.add_pod("early-0", "early", res(1));  // pod before its PodGroup and queue
  const auto g = *w.snap.find_pod("early-0");
  CHECK_FALSE(w.snap.find_group("early").has_value());
  CHECK(w.snap.pods()[static_cast<std::size_t>(g)].queue == kNone);
  w.add_group("early", "late-q", 1);
  const auto q =
      w.snap.queues()[static_cast<std::size_t>(w.snap.pods()[static_cast<std::size_t>(g)].queue)];
  CHECK(q.name == "late-q");
  CHECK_FALSE(q.present);  // the queue itself has not arrived
  CHECK(q.pending_index.size() - q.pending_dead == 1);
  // A bare pod with a queue label is a group of one (§8.5).
  w.add_pod("bare", "", res(2), "", "late-q");
  const auto bg = w.snap.find_group("pod:bare");
  REQUIRE(bg.has_value());
  CHECK(w.snap.groups()[static_cast<std::size_t>(*bg)].implicit);
  w.snap.remove_pod("bare");
  CHECK_FALSE(w.snap.find_group("pod:bare").has_value());
}

TEST_CASE("snapshot: next maxDuration expiry (§8.8)", "[snapshot]") {
  TestWorld w;
  auto q = w.add_queue("q", 1);
  CHECK_FALSE(w.snap.next_max_duration_expiry().has_value());
  q.spec.max_duration = t9k::kernel::hours(1);
  w.snap.upsert_queue(q);
  w.add_group("g", "q", 1);
  w.add_pod("p", "g", res(1));  // created at second 2
  REQUIRE(w.snap.next_max_duration_expiry().has_value());
  CHECK(*w.snap.next_max_duration_expiry() == sec(2 + 3600));
}

// live_pods is kept only while the queue has a maxDuration: one given later must still see the
// pods that were already there, and one taken away stops the expiries.
TEST_CASE("snapshot: a maxDuration given to a queue later counts its existing pods (§8.8)",
          "[snapshot]") {
  TestWorld w;
  auto q = w.add_queue("q", 1);
  w.add_node("n1", res(32, 8, 256));
  w.add_group("g", "q", 2);
  w.add_pod("p1", "g", res(1, 1));  // created at second 2
  w.add_pod("p2", "g", res(1, 1));  // second 3
  w.snap.bind("p1", "n1");
  CHECK_FALSE(w.snap.next_max_duration_expiry().has_value());
  q.spec.max_duration = t9k::kernel::hours(1);
  w.snap.upsert_queue(q);
  REQUIRE(w.snap.next_max_duration_expiry().has_value());
  CHECK(*w.snap.next_max_duration_expiry() == sec(2 + 3600));  // p1, bound, is still live
  w.snap.release("p1", false);
  CHECK(*w.snap.next_max_duration_expiry() == sec(3 + 3600));
  q.spec.max_duration.reset();
  w.snap.upsert_queue(q);
  CHECK_FALSE(w.snap.next_max_duration_expiry().has_value());
  q.spec.max_duration = t9k::kernel::hours(2);
  w.snap.upsert_queue(q);
  CHECK(*w.snap.next_max_duration_expiry() == sec(3 + 7200));
}

TEST_CASE("snapshot: removing a node drops it from the index and the capacity", "[snapshot]") {
  TestWorld w;
  w.add_node("n1", res(10, 8));
  w.add_node("n2", res(10, 8));
  CHECK(at(w.snap.cluster_capacity(), kDimGpu) == 16000);
  w.snap.remove_node("n1");
  CHECK(at(w.snap.cluster_capacity(), kDimGpu) == 8000);
  CHECK(w.snap.nodes_by_free_gpu().size() == 1);
  CHECK_FALSE(w.snap.find_node("n1").has_value());
}

// Memory in milli-bytes overflowed int64 past 8 PiB: the bench's 10,000 nodes of 2 TiB sum to
// 20 PiB, and DRF over the cluster's capacity then ignored memory (a negative denominator).
TEST_CASE("snapshot: a 10,000-node cluster's memory is counted in bytes, without overflow",
          "[snapshot]") {
  TestWorld w;
  for (int i = 0; i < 10000; ++i) w.add_node("n" + std::to_string(i), res(192, 8, 2048));
  const std::int64_t tib = std::int64_t{1} << 40;
  CHECK(at(w.snap.cluster_capacity(), kDimMemory) == 10000 * 2 * tib);
  CHECK(at(w.snap.cluster_capacity(), kDimCpu) == 10000 * 192 * 1000);  // CPU stays in milli
  const auto& table = w.snap.resources();
  CHECK(table.quantity(kDimMemory, 2 * tib).to_string() == "2Ti");
  // Kubernetes' Value(): a fraction of a byte counts as a whole one.
  CHECK(table.amount(kDimMemory, t9k::model::Quantity::from_milli(1500)) == 2);
  CHECK(table.amount(kDimCpu, t9k::model::Quantity::from_milli(1500)) == 1500);
}

TEST_CASE("snapshot: a nomination lasts while its group waits (§8.6 nomination)",
          "[snapshot][nomination]") {
  TestWorld w;
  w.add_node("n1", res(32, 8));
  w.add_node("n2", res(32, 8));
  w.add_queue("q", 1);
  w.add_group("g", "q", 2);
  w.add_pods("g", 3, res(1, 4));  // minMember 2, one surplus pod
  auto& s = w.snap;
  const GroupId g = *s.find_group("g");
  const auto nominated = [&] { return s.groups()[static_cast<std::size_t>(g)].nominated; };
  const std::vector<NodeReservation> plan{
      {"n1", res(1, 4)}, {"n2", res(1, 4)}, {"gone", res(1, 1)}, {"n1", res(1, 4)}};
  s.nominate("nobody", plan);  // unknown group: ignored
  CHECK(s.nominated_groups().empty());
  s.nominate("g", plan);
  REQUIRE(nominated().size() == 2);  // unknown node skipped; n1 named twice adds up
  CHECK(nominated()[0].first == *s.find_node("n1"));
  CHECK(at(to_dense(nominated()[0].second), kDimGpu) == 8000);
  s.nominate("g", {{"n2", res(1, 4)}});  // replaces the whole plan (idempotent per eviction)
  REQUIRE(nominated().size() == 1);
  CHECK(nominated()[0].first == *s.find_node("n2"));

  SECTION("ends when minMember is bound (the surplus never preempts)") {
    s.bind("g-0", "n1");
    CHECK(s.nominated_groups().size() == 1);
    s.bind("g-1", "n2");
    CHECK(s.nominated_groups().empty());
    CHECK(nominated().empty());
  }
  SECTION("ends when no pod of the group is pending any more") {
    for (const auto* p : {"g-0", "g-1", "g-2"}) s.remove_pod(p);
    CHECK(s.nominated_groups().empty());
  }
  SECTION("ends when the PodGroup is removed") {
    s.remove_pod_group("g");
    CHECK(s.nominated_groups().empty());
  }
  SECTION("a removed node loses its reservations") {
    s.remove_node("n2");
    CHECK(s.nominated_groups().empty());
  }
  SECTION("an empty plan clears") {
    s.nominate("g", {});
    CHECK(s.nominated_groups().empty());
  }
}
