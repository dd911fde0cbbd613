// Shared GPUs: pods requesting t9ksim.io/gpu-milli share one GPU by milli-units, placed best-fit
// on the GPU with the least room left (issue 9; docs/scheduler.md "Shared GPUs").
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <tuple>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;
namespace model = t9k::model;

namespace {

const NodeInfo& node_info(const TestWorld& w, const std::string& name) {
  return w.snap.nodes()[static_cast<std::size_t>(*w.snap.find_node(name))];
}

// The pod finished: it gives its GPU share back.
void complete(TestWorld& w, const std::string& pod) {
  w.pods.at(pod).phase = model::PodPhase::Succeeded;
  w.snap.release(pod, true);
}

SchedulerOptions preempting() {
  SchedulerOptions o;
  o.preemption = true;
  return o;
}

// From the test world's own pods, independently of the snapshot: per node, the milli-GPU on
// each slot and the whole GPUs taken. No slot above 1000, and whole GPUs plus used slots within
// the node's GPUs.
void check_no_overcommit(const TestWorld& w, const std::map<std::string, std::int64_t>& gpus) {
  std::map<std::string, std::map<std::int32_t, std::int64_t>> slots;
  std::map<std::string, std::int64_t> whole;
  for (const auto& [name, p] : w.pods) {
    if (p.node_name.empty() || p.phase == model::PodPhase::Succeeded) continue;
    const auto g = model::get_resource(*p.requests, model::kResourceGpuMilli).units_ceil();
    if (g > 0) {
      REQUIRE(p.gpu_index >= 0);
      slots[p.node_name.str()][p.gpu_index] += g;
    }
    whole[p.node_name.str()] += model::get_resource(*p.requests, model::kResourceGpu).units_ceil();
  }
  for (const auto& [node, total] : gpus) {
    std::int64_t used_slots = 0;
    for (const auto& [slot, milli] : slots[node]) {
      INFO(node << " slot " << slot);
      CHECK(milli <= 1000);
      if (milli > 0) ++used_slots;
    }
    INFO(node);
    CHECK(whole[node] + used_slots <= total);
    // The snapshot agrees: its GPU column counts whole GPUs plus used slots.
    CHECK(at(node_info(w, node).used, kDimGpu) == 1000 * (whole[node] + used_slots));
  }
}

}  // namespace

TEST_CASE("shared GPUs: shares stack on one GPU best-fit and keep the other GPUs whole",
          "[shared-gpu]") {
  TestWorld w;
  w.add_node("n1", res(32, 4));
  w.add_queue("default", 0);
  w.add_pod("a", "", share(500));
  w.add_pod("b", "", share(300));
  Scheduler s;
  auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 2);
  CHECK(w.pods.at("a").gpu_index == 0);
  CHECK(w.pods.at("b").gpu_index == 0);  // the used GPU's room (500) holds it
  const auto& n = node_info(w, "n1");
  CHECK(n.share_used[0] == 800);
  CHECK(n.shared_slots == 1);
  CHECK(n.free(kDimGpu) == 3000);  // three GPUs stay whole
  CHECK(w.snap.share_rooms().count({200, *w.snap.find_node("n1"), 0}) == 1);

  // Whole-GPU pods get only the untouched GPUs.
  w.add_pod("w3", "", res(0, 3));
  w.add_pod("w1", "", res(0, 1));
  d = w.cycle(s);
  CHECK(has_binding(d, "w3"));
  CHECK_FALSE(has_binding(d, "w1"));
  // A share still fits in the used GPU's room; one larger than the room has nowhere to go.
  w.add_pod("c", "", share(200));
  w.add_pod("e", "", share(300));
  d = w.cycle(s);
  CHECK(has_binding(d, "c"));
  CHECK_FALSE(has_binding(d, "e"));
  check_no_overcommit(w, {{"n1", 4}});

  // Shares ending give the GPU back whole.
  for (const auto* p : {"a", "b", "c"}) complete(w, p);
  CHECK(node_info(w, "n1").shared_slots == 0);
  CHECK(w.snap.share_rooms().empty());
  d = w.cycle(s);
  CHECK(has_binding(d, "w1"));       // the freed GPU is whole again
  CHECK_FALSE(has_binding(d, "e"));  // and w1 (earlier) took it
  check_no_overcommit(w, {{"n1", 4}});
}

TEST_CASE("shared GPUs: best fit across nodes is the GPU with the least room left",
          "[shared-gpu]") {
  TestWorld w;
  w.add_node("n1", res(32, 2));
  w.add_node("n2", res(32, 2));
  w.add_node("n3", res(32, 1));
  w.add_queue("default", 0);
  w.add_pod("x", "", share(700));
  w.run_on("x", "n1");
  w.add_pod("y", "", share(400));
  w.run_on("y", "n2");
  Scheduler s;
  // Rooms: n1 300, n2 600. A share of 250 goes to n1 (50 left), not n2 (350) or a whole GPU.
  w.add_pod("p250", "", share(250));
  auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].node == "n1");
  CHECK(d.bindings[0].gpu_slot == w.pods.at("x").gpu_index);
  // 400 does not fit n1's 50: n2's room of 600 (200 left) beats any untouched GPU (600 left).
  w.add_pod("p400", "", share(400));
  d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].node == "n2");
  // 700 fits no used GPU: an untouched one. Every node has one whole GPU free; bin-pack breaks
  // the tie for the fullest node after placement: n1 (and n2) at 85 % of two GPUs, n3 at 70 %.
  w.add_pod("p700", "", share(700));
  d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].node == "n1");
  CHECK(d.bindings[0].gpu_slot != w.pods.at("x").gpu_index);
  check_no_overcommit(w, {{"n1", 2}, {"n2", 2}, {"n3", 1}});
}

TEST_CASE("shared GPUs: placements in one cycle see each other", "[shared-gpu]") {
  TestWorld w;
  w.add_node("n1", res(32, 1));
  w.add_queue("default", 0);
  for (int i = 0; i < 4; ++i) w.add_pod("s" + std::to_string(i), "", share(300));
  Scheduler s;
  const auto d = w.cycle(s);
  CHECK(d.bindings.size() == 3);  // 900 of 1000; the fourth would overflow the GPU
  for (const auto& b : d.bindings) CHECK(b.gpu_slot == 0);
  CHECK(w.node_of("s3").empty());
  check_no_overcommit(w, {{"n1", 1}});
}

TEST_CASE("shared GPUs: a gang of shares is placed all or nothing", "[shared-gpu]") {
  TestWorld w;
  w.add_node("n1", res(32, 2));
  w.add_queue("default", 0);
  w.add_group("g", "default", 3);
  w.add_pods("g", 3, share(600));
  Scheduler s;
  CHECK(w.cycle(s).empty());  // 600 + 600 do not share a GPU: two GPUs hold two of three
  CHECK(node_info(w, "n1").shared_slots == 0);  // the trial left nothing behind
  w.add_node("n2", res(32, 1));
  const auto d = w.cycle(s);
  CHECK(d.bindings.size() == 3);
  check_no_overcommit(w, {{"n1", 2}, {"n2", 1}});
}

TEST_CASE("shared GPUs: queue quota counts a share as a fraction of a GPU", "[shared-gpu]") {
  TestWorld w;
  w.add_node("n1", res(32, 4));
  w.add_queue("q", 0, res(0, 1));  // quota: nvidia.com/gpu 1
  for (int i = 0; i < 3; ++i) w.add_pod("s" + std::to_string(i), "", share(400), "", "q");
  Scheduler s;
  const auto d = w.cycle(s);
  CHECK(d.bindings.size() == 2);  // 800 milli-GPU; a third share would make 1.2 GPUs
  const auto q = *w.snap.find_queue("q");
  CHECK(at(w.snap.queues()[static_cast<std::size_t>(q)].allocated, kDimGpu) == 800);
}

TEST_CASE("shared GPUs: node selectors and the default scheduler", "[shared-gpu]") {
  TestWorld w;
  w.add_node("t4", res(32, 1), "", "", {{model::kLabelGpuModel, "T4"}});
  w.add_node("v100", res(32, 1), "", "", {{model::kLabelGpuModel, "V100"}});
  w.add_default_pod("d1", share(600));
  w.run_on("d1", "t4");
  auto& p = w.add_default_pod("d2", share(300));
  p.node_selector = {{model::kLabelGpuModel, "V100"}};
  w.snap.upsert_pod(p);
  Scheduler s;
  // Best fit alone would pick t4's room (100 left); the selector allows only V100.
  const auto d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].node == "v100");
  check_no_overcommit(w, {{"t4", 1}, {"v100", 1}});
}

TEST_CASE("shared GPUs: preemption frees a share's room and reprieves what is not needed",
          "[shared-gpu][preemption]") {
  TestWorld w;
  w.add_node("n1", res(32, 1));
  w.add_queue("low", 1);
  w.add_queue("high", 2, std::nullopt, false);
  w.add_pod("l600", "", share(600), "", "low");
  w.add_pod("l400", "", share(400), "", "low");
  Scheduler s(preempting());
  REQUIRE(w.cycle(s).bindings.size() == 2);
  w.add_pod("h500", "", share(500), "", "high");
  auto d = w.cycle(s);
  // The newest victim (l400) alone leaves 400 < 500; l600 must go, and then l400 is reprieved.
  REQUIRE(d.evictions.size() == 1);
  CHECK(d.evictions[0].pod == "l600");
  CHECK(d.bindings.empty());
  d = w.cycle(s);
  REQUIRE(d.bindings.size() == 1);
  CHECK(d.bindings[0].pod == "h500");
  CHECK(w.pods.at("h500").gpu_index == w.pods.at("l400").gpu_index);  // 900 on the one GPU
  check_no_overcommit(w, {{"n1", 1}});
}

TEST_CASE("shared GPUs: a whole-GPU preemptor evicts every share on a GPU",
          "[shared-gpu][preemption]") {
  TestWorld w;
  w.add_node("n1", res(32, 1));
  w.add_queue("low", 1);
  w.add_queue("high", 2, std::nullopt, false);
  w.add_pod("a", "", share(300), "", "low");
  w.add_pod("b", "", share(300), "", "low");
  Scheduler s(preempting());
  REQUIRE(w.cycle(s).bindings.size() == 2);
  w.add_pod("whole", "", res(0, 1), "", "high");
  auto graceful = [&] {
    auto r = s.schedule(w.snap, sec(1000000));
    w.apply_graceful(r);
    return r;
  };
  auto d = graceful();
  CHECK(d.evictions.size() == 2);
  // While the shares terminate, the preemptor waits for them and preempts nothing more; a
  // lower-ranked share does not take the room it waits for (nomination, §8.6).
  w.add_pod("c", "", share(100), "", "low");
  d = graceful();
  CHECK(d.empty());
  w.finish("a");
  w.finish("b");
  d = w.cycle(s);
  REQUIRE(has_binding(d, "whole"));
  CHECK_FALSE(has_binding(d, "c"));
  check_no_overcommit(w, {{"n1", 1}});
}

TEST_CASE("shared GPUs: random shares and whole GPUs never over-commit a GPU",
          "[shared-gpu][property]") {
  for (int seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(static_cast<std::uint32_t>(seed));
    TestWorld w;
    std::map<std::string, std::int64_t> gpus;
    for (int n = 0; n < 4; ++n) {
      const std::int64_t g = 1 + static_cast<std::int64_t>(rng() % 4);
      gpus["n" + std::to_string(n)] = g;
      w.add_node("n" + std::to_string(n), res(64, g));
    }
    w.add_queue("low", 1);
    w.add_queue("high", 2, std::nullopt, false);
    Scheduler s(preempting());
    int next = 0;
    for (int step = 0; step < 40; ++step) {
      for (int k = 0; k < 3; ++k) {
        const bool whole = rng() % 4 == 0;
        const std::string q = rng() % 3 == 0 ? "high" : "low";
        const std::string name = "p" + std::to_string(next++);
        w.add_pod(name, "",
                  whole ? res(1, 1 + static_cast<std::int64_t>(rng() % 2))
                        : share(50 * (1 + static_cast<std::int64_t>(rng() % 20)), 1),
                  "", q);
      }
      w.cycle(s);
      INFO("seed " << seed << " step " << step);
      check_no_overcommit(w, gpus);
      // Some running pods finish.
      std::vector<std::string> done;
      for (const auto& [name, p] : w.pods)
        if (!p.node_name.empty() && p.phase != model::PodPhase::Succeeded && rng() % 3 == 0)
          done.push_back(name);
      for (const auto& name : done) complete(w, name);
    }
  }
}

TEST_CASE("shared GPUs: admission quota (reject-at-admission) counts shares as fractions",
          "[shared-gpu][quota]") {
  TestWorld w;
  w.add_node("n1", res(32, 4));
  w.add_queue("q", 0, res(0, 1));           // quota: nvidia.com/gpu 1
  w.add_pod("a", "", share(600), "", "q");  // 0.6 GPU requested
  SchedulerOptions o;
  o.quota_mode = QuotaMode::RejectAtAdmission;
  Scheduler s(o);
  CHECK_FALSE(s.admit(w.snap, AdmissionRequest{"b", "q", share(400)}).has_value());  // 1.0: fits
  const auto r = s.admit(w.snap, AdmissionRequest{"c", "q", share(500)});            // 1.1
  REQUIRE(r.has_value());
  CHECK(r->reason == RejectReason::QuotaExceeded);
}
