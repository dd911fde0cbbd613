// CycleState's walk over the bonus nodes of a preemption trial (walk_bonus, kept in a MaxTree)
// against plain scans: the tree alone, then the cycle state under random trial bookkeeping.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "scheduler/cycle_state.hpp"
#include "scheduler/max_tree.hpp"
#include "scheduler/stages.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;

namespace {

constexpr std::size_t kNoStop = std::numeric_limits<std::size_t>::max();

// mt19937_64's output is the same everywhere, uniform_int_distribution's is not: the runs (and
// the coverage counts the cycle-state case checks) do not depend on the standard library.
std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}

template <class T>
std::size_t pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(v.size()) - 1));
}

// The positions each_at_least visits, stopping (f returns true) at the stop_after-th.
std::vector<std::size_t> tree_at_least(const MaxTree& t, std::int64_t x,
                                       std::size_t stop_after = kNoStop) {
  std::vector<std::size_t> out;
  t.each_at_least(x, [&](std::size_t i) {
    out.push_back(i);
    return out.size() >= stop_after;
  });
  return out;
}

std::vector<std::size_t> scan_at_least(const std::vector<std::int64_t>& v, std::int64_t x) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] >= x) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("max tree: positions at or above a value, in order, against a plain scan",
          "[scheduler][cycle-state]") {
  std::mt19937_64 rng(0x7139'2024'0611ULL);
  constexpr std::int64_t kLowest = MaxTree::kLowest;
  constexpr std::int64_t kHighest = std::numeric_limits<std::int64_t>::max();
  // Mostly multiples of 1000 in a small range (many ties, as free GPU milli), some odd values
  // and the extremes (CycleState pushes kLowest before the first bonus_touch).
  const auto value = [&]() -> std::int64_t {
    switch (uniform(rng, 0, 19)) {
      case 0:
        return kLowest;
      case 1:
        return kLowest + 1;
      case 2:
        return kHighest;
      case 3:
        return uniform(rng, -5000, 12000);
      default:
        return 1000 * uniform(rng, -2, 9);
    }
  };

  MaxTree t;
  std::vector<std::int64_t> m;  // the mirror
  std::size_t ops = 0, checks = 0, max_size = 0, npush = 0, nset = 0;
  const auto check = [&](const char* op) {
    REQUIRE(t.size() == m.size());
    std::vector<std::int64_t> xs{kLowest + 1, kHighest, value()};
    if (!m.empty()) {
      const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
      // The lowest value: every position. Not kLowest itself: each_at_least(kLowest) would also
      // visit the unused leaves up to the capacity (it is never asked; walk_bonus gets gpu > 0).
      xs.push_back(std::max(*lo, kLowest + 1));
      xs.push_back(*hi);
      if (*hi < kHighest) xs.push_back(*hi + 1);  // above every element: none
      const std::int64_t e = m[pick(rng, m)];
      xs.push_back(e);
      if (e < kHighest) xs.push_back(e + 1);
    }
    for (std::int64_t x : xs) {
      x = std::max(x, kLowest + 1);  // see above
      INFO("op " << ops << " (" << op << "), size " << m.size() << ", x " << x);
      const auto want = scan_at_least(m, x);
      CHECK(tree_at_least(t, x) == want);
      if (!want.empty()) {  // early stop after k hits: exactly the first k
        const auto k =
            static_cast<std::size_t>(uniform(rng, 1, static_cast<std::int64_t>(want.size())));
        INFO("stop after " << k);
        CHECK(
            tree_at_least(t, x, k) ==
            std::vector<std::size_t>(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(k)));
      }
      ++checks;
    }
  };

  check("empty");
  // Phases: grow to a target size (crossing 64, 128, 256, 512, 1024), with sets mixed in; a
  // target below the current size clears first (the only way the sequence shrinks).
  for (const std::size_t target :
       {70u, 5u, 140u, 300u, 40u, 600u, 1100u, 0u, 200u, 66u, 1030u, 130u}) {
    if (m.size() > target) {
      t.clear();
      m.clear();
      ++ops;
      check("clear");
    }
    for (std::size_t extra = 0; m.size() < target || extra < 150;) {
      const std::int64_t r = uniform(rng, 0, 999);
      if (r == 0 && uniform(rng, 0, 3) == 0) {  // a stray clear
        t.clear();
        m.clear();
        ++ops;
        check("clear");
      } else if (m.size() < target && (r < 550 || m.empty())) {
        const std::int64_t v = value();
        t.push(v);
        m.push_back(v);
        ++ops;
        check("push");
        ++npush;
      } else if (!m.empty()) {
        const std::size_t i = pick(rng, m);
        const bool small = r >= 700 && m[i] > -1000000 && m[i] < 1000000;
        const std::int64_t v =
            small ? m[i] + 1000 * uniform(rng, -2, 2) : value();  // small moves too
        t.set(i, v);
        m[i] = v;
        ++ops;
        check("set");
        ++nset;
        if (m.size() >= target) ++extra;
      } else {
        ++extra;
      }
      max_size = std::max(max_size, m.size());
    }
  }
  INFO(npush << " pushes, " << nset << " sets, " << ops << " operations, " << checks
             << " thresholds checked");
  CHECK(max_size >= 1030);
  CHECK(ops > 5000);
  CHECK(checks > 40000);
}

namespace {

struct Counters {
  int take_on_bonus = 0;  // take / take_pod changed an existing bonus node's bonus_free_gpu
  int bonus_on_bonus =
      0;  // add_bonus / add_bonus_pod / add_terminating_bonus did (node already in the bonus)
  int share_back = 0;     // ... through the shares alone (share_bonus)
  int view_on_bonus = 0;  // set_viewer / add_reservation / release_reservations did
  int walks_partial = 0;  // a threshold between the smallest and the largest bonus value
  int clears = 0, resets = 0;
  std::size_t most_bonus_nodes = 0;
};

// Every bonus node, every threshold that could tell a stale tree value from the current one (each
// node's value and value + 1) and the GPU steps 0, 1000, ..., 9000: walk_bonus visits exactly the
// bonus nodes, in joining order, that free() (bonus on) gives at least that many GPU milli.
void check_walk(CycleState& st, std::mt19937_64& rng, Counters& c) {
  const bool was_active = st.bonus_active();
  st.set_bonus_active(true);
  const std::vector<NodeId> nodes = st.bonus_nodes();
  REQUIRE(std::set<NodeId>(nodes.begin(), nodes.end()).size() == nodes.size());  // each node once
  c.most_bonus_nodes = std::max(c.most_bonus_nodes, nodes.size());
  std::vector<std::int64_t> free_gpu;
  std::vector<std::int64_t> xs{MaxTree::kLowest + 1};
  for (std::int64_t g = 0; g <= 9000; g += 1000) xs.push_back(g);
  for (const NodeId n : nodes) {
    const std::int64_t f = st.free(n, kDimGpu);
    INFO("node " << n);
    CHECK(st.bonus_free_gpu(n) == f);
    free_gpu.push_back(f);
    xs.push_back(f);
    xs.push_back(f + 1);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  for (const std::int64_t x : xs) {
    std::vector<NodeId> want;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (free_gpu[i] >= x) want.push_back(nodes[i]);
    if (!want.empty() && want.size() < nodes.size()) ++c.walks_partial;
    std::vector<NodeId> got;
    const bool stopped = st.walk_bonus(x, [&](NodeId n) {
      got.push_back(n);
      return false;
    });
    INFO("threshold " << x << ", " << nodes.size() << " bonus nodes");
    CHECK_FALSE(stopped);
    CHECK(got == want);
    if (!want.empty()) {  // f returning true stops the walk there, and walk_bonus says so
      const auto k =
          static_cast<std::size_t>(uniform(rng, 1, static_cast<std::int64_t>(want.size())));
      got.clear();
      const bool stopped_k = st.walk_bonus(x, [&](NodeId n) {
        got.push_back(n);
        return got.size() == k;
      });
      CHECK(stopped_k);
      CHECK(got ==
            std::vector<NodeId>(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(k)));
    }
  }
  st.set_bonus_active(was_active);
  // bonus_free_gpu does not depend on whether the bonus is on.
  for (std::size_t i = 0; i < nodes.size(); ++i) CHECK(st.bonus_free_gpu(nodes[i]) == free_gpu[i]);
}

void check_no_bonus(CycleState& st) {
  CHECK(st.bonus_nodes().empty());
  int visited = 0;
  CHECK_FALSE(st.walk_bonus(MaxTree::kLowest + 1, [&](NodeId) {
    ++visited;
    return false;
  }));
  CHECK(visited == 0);
}

std::string node_name(int i) { return "n" + std::to_string(100 + i); }

}  // namespace

TEST_CASE(
    "cycle state: walk_bonus finds exactly the bonus nodes with the GPUs, as free() sees them",
    "[scheduler][cycle-state]") {
  std::mt19937_64 rng(0x5eed'c5c1e);
  TestWorld w;
  constexpr int kNodes = 40;
  for (int i = 0; i < kNodes; ++i) w.add_node(node_name(i), res(64, 8, 512));
  w.add_queue("low", 1);
  w.add_queue("high", 2);

  // Running pods on all but a few nodes: on every third node first a few shares of one GPU (in
  // the slots the snapshot picks, best fit), then whole-GPU pods of 1..8 GPUs in what is left;
  // about a third of them then terminating.
  int next = 0;
  std::vector<std::string> running;
  for (int i = 0; i < kNodes; ++i) {
    if (i % 8 == 7) continue;  // a few empty nodes
    const std::string node = node_name(i);
    if (i % 3 == 0) {
      for (std::int64_t k = uniform(rng, 1, 5); k > 0; --k) {
        const std::string p = "s" + std::to_string(next++);
        w.add_pod(p, "", share(100 * uniform(rng, 1, 7), 1), "", "low");
        w.run_on(p, node);
        running.push_back(p);
      }
    }
    const auto& info = w.snap.nodes()[static_cast<std::size_t>(*w.snap.find_node(node))];
    std::int64_t left = info.free(kDimGpu) / 1000;
    while (left > 0 && uniform(rng, 0, 4) > 0) {
      const std::int64_t g = uniform(rng, 1, left);
      const std::string p = "p" + std::to_string(next++);
      w.add_pod(p, "", res(2, g, 16), "", "low");
      w.run_on(p, node);
      running.push_back(p);
      left -= g;
    }
  }
  for (const auto& p : running)
    if (uniform(rng, 0, 2) == 0) {
      w.snap.evict(p);  // as apply_graceful: terminating, still holding its resources
      w.terminating.push_back(p);
    }
  REQUIRE(w.snap.nodes_with_terminating().size() >= 10);

  // Two nominated preemptors: "pre" (queue high) outranks "pre2" (queue low).
  w.add_group("pre", "high", 2);
  w.add_pods("pre", 2, res(1, 4));
  w.add_group("pre2", "low", 1);
  w.add_pods("pre2", 1, res(1, 2));
  w.snap.nominate("pre", {{node_name(5), res(1, 4)}, {node_name(12), res(1, 4)}});
  w.snap.nominate("pre2", {{node_name(5), res(1, 2)}, {node_name(21), res(1, 2)}});
  REQUIRE(w.snap.nominated_groups().size() == 2);

  // Pending pods a trial may place: whole GPUs and shares.
  std::vector<PodId> pending;
  for (int i = 0; i < 30; ++i) {
    const std::string p = "t" + std::to_string(i);
    w.add_pod(p, "",
              i % 3 == 0 ? share(100 * uniform(rng, 1, 9), 1) : res(1, uniform(rng, 1, 8), 8), "",
              "low");
    pending.push_back(*w.snap.find_pod(p));
  }

  const auto& snap = w.snap;
  const auto pod = [&](PodId id) -> const PodInfo& {
    return snap.pods()[static_cast<std::size_t>(id)];
  };
  std::vector<PodId> bound;  // victim candidates
  for (const auto& p : running)
    if (pod(*snap.find_pod(p)).state == PodState::Bound) bound.push_back(*snap.find_pod(p));
  const std::vector<NodeId> with_terminating(snap.nodes_with_terminating().begin(),
                                             snap.nodes_with_terminating().end());
  struct Preemptor {
    GroupId group;
    Viewer viewer;
  };
  std::vector<Preemptor> preemptors;
  for (const char* g : {"pre", "pre2"}) {
    const GroupId id = *snap.find_group(g);
    const auto& gi = snap.groups()[static_cast<std::size_t>(id)];
    const auto& qi = snap.queues()[static_cast<std::size_t>(gi.queue)];
    preemptors.push_back({id, Viewer{false, id, gi.queue, qi.priority, gi.order_key(id)}});
  }

  CycleState st;
  Counters c;
  // The trial's bookkeeping, to roll back what it did.
  std::vector<std::pair<NodeId, PodId>> taken_pods;
  std::vector<std::pair<NodeId, SparseRes>> taken_raw, bonuses;
  std::vector<PodId> victims;
  std::set<NodeId> term_added;
  const auto new_cycle = [&] {
    st.reset(snap);
    st.set_viewer(Viewer{});  // the lowest viewer: every reservation held
    taken_pods.clear();
    taken_raw.clear();
    bonuses.clear();
    victims.clear();
    term_added.clear();
  };
  const auto forget_bonus = [&] {
    bonuses.clear();
    victims.clear();
    term_added.clear();
  };
  const auto random_node = [&]() -> NodeId {
    // Half the time a node already in the bonus: the changes the tree must follow.
    if (!st.bonus_nodes().empty() && uniform(rng, 0, 1) == 0)
      return st.bonus_nodes()[pick(rng, st.bonus_nodes())];
    return static_cast<NodeId>(uniform(rng, 0, kNodes - 1));
  };
  const auto random_res = [&]() -> SparseRes {
    SparseRes r;
    if (const std::int64_t cpu = 1000 * uniform(rng, 0, 4)) r.emplace_back(kDimCpu, cpu);
    const std::int64_t gpu =
        uniform(rng, 0, 4) == 0 ? uniform(rng, 1, 1999) : 1000 * uniform(rng, 1, 3);
    r.emplace_back(kDimGpu, gpu);
    return r;
  };
  // Runs a step and counts it when it changed the value of a node that was in the bonus before.
  const auto bonus_values = [&] {
    std::vector<std::pair<NodeId, std::int64_t>> v;
    for (const NodeId n : st.bonus_nodes()) v.emplace_back(n, st.bonus_free_gpu(n));
    return v;
  };
  const auto changed = [&](const std::vector<std::pair<NodeId, std::int64_t>>& before) {
    for (const auto& [n, f] : before)
      if (st.bonus_free_gpu(n) != f) return true;
    return false;
  };

  new_cycle();
  check_walk(st, rng, c);
  constexpr int kSteps = 6000;
  for (int step = 0; step < kSteps; ++step) {
    const auto before = bonus_values();
    const std::int64_t op = uniform(rng, 0, 99);
    std::string what;
    if (op < 8) {  // a node's terminating pods give back
      std::vector<NodeId> fresh;
      for (const NodeId n : with_terminating)
        if (!term_added.count(n)) fresh.push_back(n);
      if (fresh.empty()) continue;
      const NodeId n = fresh[pick(rng, fresh)];
      const bool whole_gpu_back =
          at(snap.nodes()[static_cast<std::size_t>(n)].terminating, kDimGpu) != 0;
      st.add_terminating_bonus(n);
      term_added.insert(n);
      what = "add_terminating_bonus";
      if (changed(before)) {
        ++c.bonus_on_bonus;
        if (!whole_gpu_back) ++c.share_back;
      }
    } else if (op < 20) {  // a victim
      std::vector<PodId> fresh;
      for (const PodId p : bound)
        if (std::find(victims.begin(), victims.end(), p) == victims.end()) fresh.push_back(p);
      if (fresh.empty()) continue;
      const PodId p = fresh[pick(rng, fresh)];
      st.add_bonus_pod(pod(p), 1);
      victims.push_back(p);
      what = "add_bonus_pod +1";
      if (changed(before)) {
        ++c.bonus_on_bonus;
        if (pod(p).gpu_share > 0) ++c.share_back;
      }
    } else if (op < 28) {  // a victim reprieved
      if (victims.empty()) continue;
      const std::size_t i = pick(rng, victims);
      st.add_bonus_pod(pod(victims[i]), -1);
      what = "add_bonus_pod -1";
      if (changed(before)) {
        ++c.bonus_on_bonus;
        if (pod(victims[i]).gpu_share > 0) ++c.share_back;
      }
      victims.erase(victims.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op < 36) {
      const NodeId n = random_node();
      auto r = random_res();
      st.add_bonus(n, r, 1);
      bonuses.emplace_back(n, std::move(r));
      what = "add_bonus +1";
      if (changed(before)) ++c.bonus_on_bonus;
    } else if (op < 42) {
      if (bonuses.empty()) continue;
      const std::size_t i = pick(rng, bonuses);
      st.add_bonus(bonuses[i].first, bonuses[i].second, -1);
      bonuses.erase(bonuses.begin() + static_cast<std::ptrdiff_t>(i));
      what = "add_bonus -1";
      if (changed(before)) ++c.bonus_on_bonus;
    } else if (op < 56) {  // a pending pod placed where it fits
      std::vector<PodId> fresh;
      for (const PodId p : pending)
        if (std::none_of(taken_pods.begin(), taken_pods.end(),
                         [&](const auto& t) { return t.second == p; }))
          fresh.push_back(p);
      if (fresh.empty()) continue;
      const PodId p = fresh[pick(rng, fresh)];
      NodeId n = kNone;
      for (int tries = 0; tries < 8 && n == kNone; ++tries) {
        const NodeId m = random_node();
        if (st.fits_pod(m, pod(p))) n = m;
      }
      if (n == kNone) continue;
      st.take_pod(n, p, pod(p), 1);
      taken_pods.emplace_back(n, p);
      what = "take_pod +1";
      if (changed(before)) ++c.take_on_bonus;
    } else if (op < 66) {  // rolled back
      if (taken_pods.empty()) continue;
      const std::size_t i = pick(rng, taken_pods);
      st.take_pod(taken_pods[i].first, taken_pods[i].second, pod(taken_pods[i].second), -1);
      taken_pods.erase(taken_pods.begin() + static_cast<std::ptrdiff_t>(i));
      what = "take_pod -1";
      if (changed(before)) ++c.take_on_bonus;
    } else if (op < 72) {
      const NodeId n = random_node();
      auto r = random_res();
      st.take(n, r, 1);
      taken_raw.emplace_back(n, std::move(r));
      what = "take +1";
      if (changed(before)) ++c.take_on_bonus;
    } else if (op < 77) {
      if (taken_raw.empty()) continue;
      const std::size_t i = pick(rng, taken_raw);
      st.take(taken_raw[i].first, taken_raw[i].second, -1);
      taken_raw.erase(taken_raw.begin() + static_cast<std::ptrdiff_t>(i));
      what = "take -1";
      if (changed(before)) ++c.take_on_bonus;
    } else if (op < 83) {
      st.set_bonus_active(uniform(rng, 0, 4) > 0);
      what = "set_bonus_active";
    } else if (op < 89) {  // another viewer: the view grows, or is rebuilt
      const std::int64_t v = uniform(rng, 0, 2);
      st.set_viewer(v == 0 ? Viewer{} : preemptors[static_cast<std::size_t>(v - 1)].viewer);
      what = "set_viewer";
      if (changed(before)) ++c.view_on_bonus;
    } else if (op < 93) {  // a preemption decided earlier in this cycle reserves resources
      const auto& pr = preemptors[static_cast<std::size_t>(uniform(rng, 0, 1))];
      st.add_reservation(CycleReservation{
          pr.group, pr.viewer.queue, pr.viewer.queue_priority, pr.viewer.rank, random_node(),
          SparseRes{{kDimCpu, 1000}, {kDimGpu, 1000 * uniform(rng, 1, 3)}}, true});
      what = "add_reservation";
      if (changed(before)) ++c.view_on_bonus;
    } else if (op < 95) {
      st.release_reservations(preemptors[static_cast<std::size_t>(uniform(rng, 0, 1))].group);
      what = "release_reservations";
      if (changed(before)) ++c.view_on_bonus;
    } else if (op < 98) {  // the trial ends; the next one starts from no bonus
      if (uniform(rng, 0, 1) == 0) continue;
      st.clear_bonus();
      forget_bonus();
      ++c.clears;
      INFO("step " << step << ": clear_bonus");
      check_no_bonus(st);
      what = "clear_bonus";
    } else {  // the next cycle
      if (uniform(rng, 0, 3) > 0) continue;
      new_cycle();
      ++c.resets;
      INFO("step " << step << ": reset");
      check_no_bonus(st);
      what = "reset";
    }
    INFO("step " << step << ": " << what);
    check_walk(st, rng, c);
  }
  // The run did exercise what the walk must follow: otherwise the checks above prove little.
  INFO("take " << c.take_on_bonus << ", bonus " << c.bonus_on_bonus << ", share " << c.share_back
               << ", view " << c.view_on_bonus << ", partial walks " << c.walks_partial
               << ", clears " << c.clears << ", resets " << c.resets << ", most bonus nodes "
               << c.most_bonus_nodes);
  CHECK(c.take_on_bonus >= 50);
  CHECK(c.bonus_on_bonus >= 50);
  CHECK(c.share_back >= 5);
  CHECK(c.view_on_bonus >= 10);
  CHECK(c.walks_partial >= 1000);
  CHECK(c.clears >= 20);
  CHECK(c.resets >= 10);
  CHECK(c.most_bonus_nodes >= 15);
}
