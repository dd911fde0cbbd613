// Lazy waiting gangs (scheduler/lazy_waits.cpp, issue 49): a world that marks its published
// capacity waits lazy, as sim's SchedulingDriver does, must publish exactly what a world that
// marks nothing publishes, and the scheduler must decide exactly the same, while looking at far
// fewer waiting gangs. Random histories of a deep queue of gangs of one-GPU pods (the PAI
// backlog's shape) mixed with gangs of two other shapes, another queue of other shapes beside
// them, nodes that fail and come back or are cordoned, a GPU quota that comes and goes, pods and
// groups deleted, minMember changed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;
namespace model = t9k::model;

namespace lazy_waits_test {  // named: the suite builds as one unit

// What sim/scheduling_driver.cpp does with the reasons of T9k groups: a wait is published when
// it begins or its cause changes; later reasons of the same cause are kept, and the last one is
// published when the group is placed or the run ends. A lazy world marks such waits lazy.
struct MiniDriver {
  struct Wait {
    bool active = false, dirty = false, lazy = false;
    PendingReason last;
    std::uint64_t cycle = 0;
  };
  bool lazy_world = false;
  std::map<std::string, Wait> waits;     // by group key (the test world's sequences are all 0)
  std::map<GroupId, std::string> names;  // the key each id last reported under (ids are reused)
  std::vector<std::string> log;          // what is published, in order
  std::uint64_t cycles = 0;

  static bool bound(const ClusterSnapshot& snap, GroupId g) {
    const auto& info = snap.groups()[static_cast<std::size_t>(g)];
    return info.n_bound + info.n_succeeded > 0;
  }
  static std::string key_of(const ClusterSnapshot& snap, GroupId g) {
    return snap.groups()[static_cast<std::size_t>(g)].key.str();
  }
  void publish(const ClusterSnapshot& snap, const std::string& key, const Wait& w) {
    log.push_back("c" + std::to_string(cycles) + " " + key + " " + describe(w.last, snap));
  }
  void catch_up(const ClusterSnapshot& snap, const std::vector<PendingReason>& reasons) {
    std::vector<std::pair<GroupId, std::uint64_t>> seen;  // a group is caught up once a cycle
    for (const auto& r : reasons) {
      CHECK(std::find(seen.begin(), seen.end(), std::pair{r.group, r.sequence}) == seen.end());
      seen.emplace_back(r.group, r.sequence);
      // A group erased since its last report (removed, paused) is caught up under its old id.
      const auto name = names.find(r.group);
      auto it = waits.find(name != names.end() ? name->second : key_of(snap, r.group));
      if (it == waits.end() || !it->second.active) continue;
      CHECK(it->second.dirty);  // only a published wait with a later reason is lazy
      CHECK(it->second.last.cause == r.cause);
      it->second.last = r;
    }
  }
  // Before the decisions are applied: the groups they place end their waits.
  void placed(ClusterSnapshot& snap, const TestWorld& w, const Decisions& d) {
    for (const auto& b : d.bindings) {
      const auto g = snap.find_group(w.pods.at(b.pod).pod_group.str());
      if (!g) continue;
      const auto it = waits.find(key_of(snap, *g));
      if (it == waits.end()) continue;
      if (it->second.dirty) publish(snap, it->first, it->second);
      if (lazy_world && it->second.lazy) snap.set_lazy(*g, it->second.last.sequence, false);
      waits.erase(it);
    }
  }
  void note(ClusterSnapshot& snap, const Decisions& d) {
    ++cycles;
    for (const auto& r : d.pending) {
      if (r.group == kNone || bound(snap, r.group)) continue;
      const std::string& key = names[r.group] = key_of(snap, r.group);
      Wait& w = waits[key];
      if (w.cycle == cycles) continue;
      w.cycle = cycles;
      const bool new_cause = !w.active || !r.continued || w.last.cause != r.cause;
      w.active = true;
      w.last = r;
      w.dirty = !new_cause;
      if (new_cause) publish(snap, key, w);
      const bool lazy = w.dirty && w.last.cause == PendingCause::Capacity;
      if (lazy != w.lazy) w.lazy = lazy_world ? snap.set_lazy(r.group, r.sequence, lazy) : lazy;
    }
  }
  void finish(ClusterSnapshot& snap, Scheduler& s) {
    if (lazy_world) catch_up(snap, s.lazy_reasons(snap));
    // Every wait not ended by a placement, pending or not (sim publishes for every job not
    // terminal: a paused one too): the strictest comparison of the last reasons.
    for (const auto& [key, w] : waits)
      if (w.active && w.dirty) publish(snap, key, w);
  }
};

// The deep queue's shapes: the backlog's one-GPU pods mostly, a larger CPU and memory request on
// one GPU, and two GPUs a pod; beyond those, one GPU with more CPU and memory each.
ResourceList deep_shape(int i) {
  return i == 0 ? res(1, 1, 4) : i == 1 ? res(2, 1, 8) : i == 2 ? res(1, 2, 4) : res(i, 1, 4 * i);
}

struct Outcome {
  std::vector<std::string> log;
  std::vector<std::string> bindings;
  std::size_t reasons = 0;               // reports, the work that laziness saves
  std::size_t reasons_other_shapes = 0;  // of them, for the deep queue's gangs of shapes 1 and 2
};

// `shapes` shapes in the deep queue: 3, or more, a few at a time, for more kinds (shape and gang
// size) over the history than the scheduler has bits (64 a queue): gangs of the later kinds are
// looked at one by one.
Outcome run(std::uint64_t seed, bool lazy, bool one_rack, int shapes) {
  Rand r{seed};
  TestWorld w;
  SchedulerOptions opt;
  opt.preemption = false;
  Scheduler s(opt);
  MiniDriver driver;
  driver.lazy_world = lazy;
  Outcome out;
  const int nodes = r.uniform(4, 12);
  auto add_node = [&](int i) {
    w.add_node("n" + std::to_string(i), res(64, 8, 512), one_rack ? "r0" : "",
               one_rack ? "s0" : "");
  };
  for (int i = 0; i < nodes; ++i) add_node(i);
  w.add_queue("deep", 1);
  w.add_queue("other", 0);
  const int sizes[] = {1, 2, 3, 4, 4, 6, 8, 8, 12, 16, 24};
  std::map<std::string, std::vector<std::string>> groups;
  std::map<std::string, int> shape_of;  // the deep queue's gangs: their shape (deep_shape)
  std::map<std::string, ResourceList> request_of;  // every gang's pods' request
  std::vector<std::string> gone_pods;  // deleted pods of waiting gangs, recreated a round later
  std::map<std::string, int> paused;   // waiting gangs with every pod deleted, until a round
  std::vector<int> down;               // nodes removed, added back later
  bool quota = false;                  // the deep queue has a GPU quota
  int next = 0;
  std::int64_t now = 1000;
  for (int round = 0; round < 160; ++round) {
    INFO("seed " << seed << " round " << round);
    now += r.uniform(0, 4);
    for (const auto& p : gone_pods) {
      const std::string g = p.substr(0, p.find('-'));
      // Now and then with another shape: the gang's pods then differ (no lazy kind), or, all
      // recreated so, its kind changes while it waits.
      if (groups.count(g) && !w.pods.count(p))
        w.add_pod(p, g, r.chance(25) ? deep_shape(r.uniform(0, shapes - 1)) : request_of.at(g));
    }
    gone_pods.clear();
    for (auto it = paused.begin(); it != paused.end();) {  // resumed: the same group, new pods
      if (it->second > round) {
        ++it;
        continue;
      }
      if (groups.count(it->first))
        if (r.chance(20)) request_of[it->first] = deep_shape(r.uniform(0, shapes - 1));
      for (const auto& p : groups[it->first]) w.add_pod(p, it->first, request_of.at(it->first));
      it = paused.erase(it);
    }
    for (int a = r.uniform(0, 6); a > 0; --a) {
      const std::string g = "g" + std::to_string(next++);
      const int n = sizes[r.uniform(0, 10)];
      const bool deep = !r.chance(15);
      w.add_group(g, deep ? "deep" : "other", n);
      // With more than three shapes, those in use drift: a few at a time, others later.
      if (deep)
        shape_of[g] = r.chance(70)  ? 0
                      : shapes <= 3 ? r.uniform(1, shapes - 1)
                                    : 1 + (round / 12 + r.uniform(0, 2)) % (shapes - 1);
      const ResourceList req = request_of[g] =
          deep ? deep_shape(shape_of[g]) : res(2, r.uniform(0, 2) * 2, 8);
      for (int k = 0; k < n; ++k) {
        const std::string p = g + "-" + std::to_string(k);
        w.add_pod(p, g, req);
        groups[g].push_back(p);
      }
    }
    // Running pods finish; now and then a whole group goes, a waiting gang loses a pod (too few
    // members for a round) or gets another minMember.
    std::vector<std::string> running;
    for (const auto& [name, p] : w.pods)
      if (!p.node_name.empty()) running.push_back(name);
    for (const auto& name : running)
      if (r.chance(10)) {
        w.snap.release(name, true);
        w.snap.remove_pod(name);
        w.pods.erase(name);
      }
    if (r.chance(20) && !groups.empty()) {
      auto it = groups.begin();
      std::advance(it, r.uniform(0, static_cast<int>(groups.size()) - 1));
      if (r.chance(50)) {
        w.remove_group(it->first, it->second);
        groups.erase(it);
      } else if (r.chance(40) && !paused.count(it->first) &&
                 std::all_of(it->second.begin(), it->second.end(), [&](const std::string& p) {
                   return w.pods.count(p) && w.pods.at(p).node_name.empty();
                 })) {
        // Paused: every pod goes (its entry is erased), the same pods come back later (the
        // entry is revived under the same key), as a T9k job paused and resumed.
        for (const auto& p : it->second) {
          w.snap.remove_pod(p);
          w.pods.erase(p);
        }
        paused[it->first] = round + r.uniform(1, 4);
      } else if (const auto& p = it->second.front();
                 w.pods.count(p) && w.pods.at(p).node_name.empty()) {
        w.snap.remove_pod(p);
        w.pods.erase(p);
        gone_pods.push_back(p);
      }
    }
    if (r.chance(5) && !groups.empty()) {
      auto it = groups.begin();
      std::advance(it, r.uniform(0, static_cast<int>(groups.size()) - 1));
      w.add_group(it->first, "deep", r.uniform(1, static_cast<int>(it->second.size())));
    }
    // A node fails (its pods with it) or comes back: the node count in capacity reasons moves.
    if (r.chance(6) && static_cast<int>(down.size()) + 2 < nodes) {
      const int i = r.uniform(0, nodes - 1);
      if (std::find(down.begin(), down.end(), i) == down.end()) {
        const std::string name = "n" + std::to_string(i);
        for (auto it = w.pods.begin(); it != w.pods.end();) {
          if (it->second.node_name == name) {
            w.snap.remove_pod(it->first);
            it = w.pods.erase(it);
          } else {
            ++it;
          }
        }
        w.snap.remove_node(name);
        down.push_back(i);
      }
    } else if (!down.empty() && r.chance(10)) {
      add_node(down.back());
      down.pop_back();
    }
    // A node is cordoned or uncordoned (reasons count it apart, and may change cause); the deep
    // queue gets a GPU quota now and then, and loses it (its walks are then not plain, and its
    // gangs are looked at one by one).
    if (r.chance(5)) {
      const int i = r.uniform(0, nodes - 1);
      if (std::find(down.begin(), down.end(), i) == down.end()) {
        model::Node n;
        n.metadata.name = "n" + std::to_string(i);
        if (one_rack) {
          n.metadata.labels[model::kLabelRack] = "r0";
          n.metadata.labels[model::kLabelSwitch] = "s0";
        }
        n.capacity = n.allocatable = res(64, 8, 512);
        n.unschedulable = r.chance(60);
        w.snap.upsert_node(n);
      }
    }
    if (quota ? r.chance(30) : r.chance(3)) {
      quota = !quota;
      model::Queue q;
      q.metadata.name = "deep";
      q.spec.priority = 1;
      if (quota) q.spec.quota = res(10000, r.uniform(8, 8 * nodes), 100000);
      w.snap.upsert_queue(q);
    }
    const Decisions d = s.schedule(w.snap, sec(now));
    out.reasons += d.pending.size();
    for (const auto& p : d.pending)
      if (p.group != kNone) {
        const auto sh = shape_of.find(w.snap.groups()[static_cast<std::size_t>(p.group)].key.str());
        if (sh != shape_of.end() && sh->second != 0) ++out.reasons_other_shapes;
      }
    for (const auto& b : d.bindings) out.bindings.push_back(b.pod + ">" + b.node);
    if (lazy)
      driver.catch_up(w.snap, d.caught_up);
    else
      REQUIRE(d.caught_up.empty());  // nothing is lazy unless the world says so
    driver.placed(w.snap, w, d);
    w.apply(d);
    driver.note(w.snap, d);
  }
  driver.finish(w.snap, s);
  out.log = std::move(driver.log);
  return out;
}

struct Totals {
  std::size_t eager = 0, lazy = 0, published = 0, eager_other = 0, lazy_other = 0;
};

std::string describe(const Totals& t) {
  return "reports " + std::to_string(t.eager) + " eager, " + std::to_string(t.lazy) + " lazy; " +
         std::to_string(t.published) + " published; of the deep queue's other shapes " +
         std::to_string(t.eager_other) + " eager, " + std::to_string(t.lazy_other) + " lazy";
}

// Each seed's history with and without lazy waits: the same bindings, the same published reasons.
Totals compare(std::uint64_t seeds, int shapes) {
  Totals t;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    INFO("seed " << seed);
    const bool one_rack = seed % 2 == 0;
    const Outcome a = run(seed, false, one_rack, shapes);
    const Outcome b = run(seed, true, one_rack, shapes);
    REQUIRE(a.bindings == b.bindings);
    std::size_t i = 0;  // the first difference, for the message
    while (i < a.log.size() && i < b.log.size() && a.log[i] == b.log[i]) ++i;
    INFO("first difference at " << i << ": eager \"" << (i < a.log.size() ? a.log[i] : "(end)")
                                << "\", lazy \"" << (i < b.log.size() ? b.log[i] : "(end)")
                                << "\"");
    REQUIRE(a.log.size() == b.log.size());
    REQUIRE(i == a.log.size());
    t.eager += a.reasons;
    t.lazy += b.reasons;
    t.eager_other += a.reasons_other_shapes;
    t.lazy_other += b.reasons_other_shapes;
    t.published += a.log.size();
  }
  INFO(describe(t));
  // The histories wait and publish, or the comparison would be vacuous.
  CHECK(t.published > 50 * seeds);
  CHECK(t.eager > 250 * seeds);
  return t;
}

}  // namespace lazy_waits_test

using namespace lazy_waits_test;

TEST_CASE("lazy waits: the same decisions and the same published reasons, fewer reports",
          "[scheduler][lazy]") {
  const Totals t = compare(40, 3);
  INFO(describe(t));
  CHECK(t.lazy * 2 < t.eager);  // laziness saves reports
  // A queue's gangs of several shapes are passed alike, not only those of its first lazy one.
  CHECK(t.eager_other > 2000);
  CHECK(t.lazy_other * 2 < t.eager_other);
}

TEST_CASE("lazy waits: more kinds than a queue has bits, the later ones looked at",
          "[scheduler][lazy]") {
  const Totals t = compare(20, 16);  // 16 shapes x 11 sizes: the 64 bits run out
  INFO(describe(t));
  CHECK(t.lazy * 2 < t.eager);
}
