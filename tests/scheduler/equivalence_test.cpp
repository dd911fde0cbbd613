// The incremental cycle (overlay with an undo log, merged free-GPU index, fast skip of pending
// groups that cannot be placed, scratch kept between cycles) decides exactly as the cycle did
// before it: the decisions of that cycle were recorded (recorded/equivalence.txt, one line per
// cycle: bindings and evictions in order, with their messages and reservations) over long random
// sequences of changes to a snapshot, and every cycle must decide what was recorded. A cycle
// with scratch kept from earlier cycles must also decide as a fresh Scheduler does.
//
// An intended behaviour change: re-record with
//   T9KSIM_RECORD_ORACLES=1 build/<dir>/tests/scheduler/scheduler_tests "[equivalence]"
// and explain the recording's diff in the commit message (tests/README.md, "Recorded outputs").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "fixtures.hpp"
#include "tests/recording.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;
namespace model = t9k::model;
using t9k::testing::Differences;
using t9k::testing::Recording;

namespace {

// The snapshot's derived indexes match a recomputation from its objects.
void check_indexes(const ClusterSnapshot& s) {
  DenseRes free_sum;
  for (const auto& n : s.nodes())
    if (n.schedulable())
      for (std::size_t d = 0; d < s.resources().size(); ++d)
        slot(free_sum, static_cast<Dim>(d)) += n.free(static_cast<Dim>(d));
  for (std::size_t d = 0; d < s.resources().size(); ++d)
    REQUIRE(at(s.schedulable_free(), static_cast<Dim>(d)) == at(free_sum, static_cast<Dim>(d)));
  // Each queue's live entries are exactly its queued groups, as the groups' own counts say.
  std::vector<std::vector<GroupOrderKey>> queued(s.queues().size());
  for (std::size_t g = 0; g < s.groups().size(); ++g) {
    const auto& info = s.groups()[g];
    if (info.queue != kNone && info.queued())
      queued[static_cast<std::size_t>(info.queue)].push_back(
          info.order_key(static_cast<GroupId>(g)));
  }
  for (auto& keys : queued) std::sort(keys.begin(), keys.end());
  for (std::size_t qi = 0; qi < s.queues().size(); ++qi) {
    const auto& q = s.queues()[qi];
    REQUIRE(q.pending_index.size() - q.pending_dead == queued[qi].size());
    REQUIRE(q.pending_dead * 3 <= q.pending_index.size());
    REQUIRE(std::count_if(q.pending_index.begin(), q.pending_index.end(),
                          [](const PendingEntry& e) { return e.dead; }) ==
            static_cast<std::ptrdiff_t>(q.pending_dead));
    REQUIRE(
        std::is_sorted(q.pending_index.begin(), q.pending_index.end(),
                       [](const PendingEntry& a, const PendingEntry& b) { return a.key < b.key; }));
    std::size_t i = 0;
    for (const auto& key : queued[qi]) {
      while (q.pending_index[i].dead) ++i;  // erased, awaiting compaction
      const auto& e = q.pending_index[i++];
      REQUIRE(e.key == key);
      const auto& g = s.groups()[static_cast<std::size_t>(group_of(key))];
      std::int64_t min_gpu = std::numeric_limits<std::int64_t>::max();
      for (const PodId p : g.pods) {
        const auto& pod = s.pods()[static_cast<std::size_t>(p)];
        if (pod.state == PodState::Pending) min_gpu = std::min(min_gpu, at(pod.request, kDimGpu));
      }
      REQUIRE(e.min_gpu == min_gpu);
      REQUIRE(e.need == std::max(0, g.min_member - g.n_bound - g.n_succeeded));
      REQUIRE(e.running == (g.n_bound + g.n_succeeded > 0));
    }
  }
}

// A cycle's decisions as one line of text, every compared field in order: the bindings, runs of
// pods bound to the same node as "pod,pod>node" ("#slot" for a shared GPU); then the evictions,
// runs of victims with the same reason, preemptor, message and reservations (one preemptor's
// victims) as "| evict pod@node pod@node: reason by preemptor "message" reserving node{resources}
// ...". "-" for a cycle that decides nothing. The runs make the recording 2.6 times smaller.
std::string decisions_text(const Decisions& d) {
  std::string out;
  const auto same_target = [](const Binding& x, const Binding& y) {
    return x.node == y.node && x.gpu_slot == y.gpu_slot;
  };
  for (std::size_t i = 0; i < d.bindings.size(); ++i) {
    const Binding& b = d.bindings[i];
    out += i == 0 ? "" : same_target(d.bindings[i - 1], b) ? "," : " ";
    out += b.pod;
    if (i + 1 < d.bindings.size() && same_target(d.bindings[i + 1], b)) continue;
    out += ">" + b.node + (b.gpu_slot >= 0 ? "#" + std::to_string(b.gpu_slot) : "");
  }
  const auto same_cause = [](const Eviction& x, const Eviction& y) {
    return x.reason == y.reason && x.message == y.message && x.preemptor == y.preemptor &&
           x.reservations == y.reservations;
  };
  for (std::size_t i = 0; i < d.evictions.size(); ++i) {
    const Eviction& e = d.evictions[i];
    out += i > 0 && same_cause(d.evictions[i - 1], e) ? " "
           : out.empty()                              ? "| evict "
                                                      : " | evict ";
    out += e.pod + "@" + (e.node.empty() ? "-" : e.node);
    if (i + 1 < d.evictions.size() && same_cause(d.evictions[i + 1], e)) continue;
    out += ": " + std::string(model::to_string(e.reason)) + " by " +
           (e.preemptor.empty() ? "-" : e.preemptor) + " \"";
    for (const char c : e.message) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += "\" reserving";
    if (e.reservations.empty()) out += " -";
    for (const auto& r : e.reservations) {
      out += " " + r.node + "{";
      for (const auto& [name, q] : r.resources)
        out += (out.back() == '{' ? "" : ",") + name + "=" + q.to_string();
      out += "}";
    }
  }
  return out.empty() ? "-" : out;
}

// The cycle's pending reasons, as their count and a hash (FNV-1a) of their messages in order:
// hundreds of reasons a cycle would make the recording four times larger.
std::string reasons_text(const Decisions& d, const ClusterSnapshot& snap) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& why : d.pending) {
    for (const char ch : describe(why, snap) + "\n") {
      h ^= static_cast<unsigned char>(ch);
      h *= 0x100000001b3ULL;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return " ? " + std::to_string(d.pending.size()) + " reasons " + hex;
}

struct Case {
  SchedulerOptions options;
  int nodes;
  int rounds;
  // One rack holding every node, busy (up to 20 arrivals a round, not 5), and the pending
  // reasons in the recording: a gang's later pods search the whole rack, which a search takes
  // from the free-GPU index when few of its nodes have room (Scheduler::Impl::few_with_room).
  bool one_busy_rack = false;
};

std::string rack_of(const Case& c, int node) {
  return c.one_busy_rack ? "r0" : "r" + std::to_string(node / 4);
}
std::string switch_of(const Case& c, int node) {
  return c.one_busy_rack ? "s0" : "s" + std::to_string(node / 16);
}

// One random history: the world changes a little (or a lot) between cycles, as sim/ does.
std::pair<std::size_t, std::size_t> run_history(std::size_t variant, std::uint64_t seed,
                                                const Case& c, Recording& recording,
                                                Differences& differences) {
  Rand r{seed * 1000003 + variant};
  const std::string history = "v" + std::to_string(variant) + " s" + std::to_string(seed) + " r";
  bool differs = false;  // compare each history up to its first difference
  TestWorld w;
  Scheduler fast(c.options);
  std::size_t bindings = 0, evictions = 0;
  const int gpus[] = {0, 1, 1, 2, 4, 8, 8, 8};
  for (int i = 0; i < c.nodes; ++i) {
    model::Labels labels;
    if (i % 3 == 0) labels["pool"] = "a";
    w.add_node("n" + std::to_string(i),
               res(r.uniform(16, 64), r.chance(85) ? 8 : r.uniform(0, 4), 512), rack_of(c, i),
               switch_of(c, i), labels);
  }
  const int queues = r.uniform(2, 4);
  for (int i = 0; i < queues; ++i) {
    model::Queue q;
    q.metadata.name = "q" + std::to_string(i);
    q.spec.priority = r.uniform(0, 3);
    if (r.chance(50)) q.spec.quota = res(r.uniform(50, 2000), r.uniform(8, 8 * c.nodes));
    if (r.chance(20)) q.spec.preemptible = false;
    if (r.chance(15)) q.spec.node_selector = model::LabelSelector{{{"pool", "a"}}, {}};
    if (r.chance(15)) q.spec.max_duration = t9k::kernel::seconds(r.uniform(20, 60));
    w.snap.upsert_queue(q);
  }
  std::map<std::string, std::vector<std::string>> groups;  // group -> its pods (live or gone)
  std::map<std::string, int> finish_at;                    // terminating pod -> round
  int next = 0;
  std::int64_t now = 1000;
  for (int round = 0; round < c.rounds; ++round) {
    INFO("variant " << variant << " seed " << seed << " round " << round);
    now += r.uniform(0, 5);
    // Arrivals: gangs, bare pods, default-scheduler pods, pods with a nodeSelector.
    for (int a = r.uniform(0, c.one_busy_rack ? 20 : 5); a > 0; --a) {
      const std::string g = "g" + std::to_string(next++);
      const int kind = r.uniform(0, 9);
      const int gpu = gpus[r.uniform(0, 7)];
      const ResourceList req = res(r.uniform(1, 8), gpu, r.uniform(1, 32));
      const std::string queue = "q" + std::to_string(r.uniform(0, queues - 1));
      if (kind == 0) {
        w.add_default_pod(g, req, r.uniform(0, 2));
      } else if (kind == 1) {
        w.add_pod(g, "", req, "", queue);
      } else {
        const int min_member = r.uniform(1, 4);
        std::vector<model::PodGroupRole> roles;
        if (kind == 2) roles.push_back(model::PodGroupRole{"ps", 1});
        w.add_group(g, queue, min_member, r.uniform(0, 3), roles);
        const int size = min_member + r.uniform(0, 2);
        for (int k = 0; k < size; ++k) {
          const std::string p = g + "-" + std::to_string(k);
          auto& pod = w.add_pod(p, g, k == 0 && kind == 2 ? res(2, 0, 4) : req,
                                k == 0 && kind == 2 ? "ps" : "");
          if (kind == 3 && k == 0) {
            pod.node_selector["pool"] = "a";
            w.snap.upsert_pod(pod);
          }
          groups[g].push_back(p);
        }
      }
    }
    // Running pods finish (succeeded or failed) and some are removed at once.
    std::vector<std::string> running;
    for (const auto& [name, p] : w.pods)
      if (!p.node_name.empty() && !finish_at.count(name)) running.push_back(name);
    for (const auto& name : running) {
      if (!r.chance(8)) continue;
      w.snap.release(name, r.chance(80));
      if (r.chance(70)) {
        w.snap.remove_pod(name);
        w.pods.erase(name);
      }
    }
    // Whole groups go away now and then.
    for (auto it = groups.begin(); it != groups.end();) {
      if (r.chance(3)) {
        w.remove_group(it->first, it->second);
        it = groups.erase(it);
      } else {
        ++it;
      }
    }
    // Nodes: cordon, fail, recover; queues: priority, quota, closed; a PodGroup's minMember.
    if (r.chance(15)) {
      const int i = r.uniform(0, c.nodes - 1);
      model::Node n;
      n.metadata.name = "n" + std::to_string(i);
      n.metadata.labels[model::kLabelRack] = rack_of(c, i);
      n.metadata.labels[model::kLabelSwitch] = switch_of(c, i);
      if (i % 3 == 0) n.metadata.labels["pool"] = "a";
      n.capacity = n.allocatable = w.snap.resources().to_list(
          w.snap.nodes()[static_cast<std::size_t>(*w.snap.find_node(n.metadata.name.str()))]
              .allocatable);
      n.unschedulable = r.chance(50);
      n.ready = r.chance(70);
      w.snap.upsert_node(n);
    }
    if (r.chance(10)) {
      model::Queue q;
      q.metadata.name = "q" + std::to_string(r.uniform(0, queues - 1));
      q.spec.priority = r.uniform(0, 3);
      if (r.chance(60)) q.spec.quota = res(r.uniform(50, 2000), r.uniform(8, 8 * c.nodes));
      q.spec.closed = r.chance(10);
      w.snap.upsert_queue(q);
    }
    if (r.chance(10) && !groups.empty()) {
      auto it = groups.begin();
      std::advance(it, r.uniform(0, static_cast<int>(groups.size()) - 1));
      w.add_group(it->first, "q" + std::to_string(r.uniform(0, queues - 1)), r.uniform(0, 4),
                  r.uniform(0, 3));
    }
    // Graceful terminations end.
    for (auto it = finish_at.begin(); it != finish_at.end();) {
      if (it->second <= round) {
        if (w.pods.count(it->first)) w.finish(it->first);
        it = finish_at.erase(it);
      } else {
        ++it;
      }
    }
    check_indexes(w.snap);

    const Decisions d = fast.schedule(w.snap, sec(now));
    const std::string key = history + std::to_string(round);
    std::string text = decisions_text(d);
    if (c.one_busy_rack) text += reasons_text(d, w.snap);
    if (recording.recording()) {
      recording.add(key, text);
    } else if (const std::string* want = recording.find(key);
               !differs && (!want || *want != text)) {
      differs = true;
      differences.add("variant " + std::to_string(variant) + " seed " + std::to_string(seed) +
                          " round " + std::to_string(round),
                      "decided now\n  " + text + "\nrecorded\n  " + (want ? *want : "(nothing)"));
    }
    if (round % 7 == 0) {  // scratch kept between cycles never changes a decision
      Scheduler fresh(c.options);
      const Decisions f = fresh.schedule(w.snap, sec(now));
      REQUIRE(f.bindings == d.bindings);
      REQUIRE(f.evictions == d.evictions);
    }
    bindings += d.bindings.size();
    evictions += d.evictions.size();
    // Apply: victims terminate gracefully (or vanish at once), jobs recreate evicted pods.
    const bool graceful = r.chance(60);
    if (graceful)
      w.apply_graceful(d);
    else
      w.apply(d);
    for (const auto& ev : d.evictions) {
      if (graceful) finish_at[ev.pod] = round + r.uniform(1, 3);
      const auto dash = ev.pod.find('-');
      if (dash == std::string::npos) continue;  // a bare pod: its job is gone
      const std::string g = ev.pod.substr(0, dash);
      if (!groups.count(g) || !w.snap.find_group(g)) continue;
      const std::string name = ev.pod + "r";
      w.add_pod(name, g, res(r.uniform(1, 8), gpus[r.uniform(0, 7)], r.uniform(1, 32)));
      groups[g].push_back(name);
    }
  }
  check_indexes(w.snap);
  return {bindings, evictions};
}

}  // namespace

TEST_CASE("equivalence: the incremental cycle decides exactly as the full-reset cycle",
          "[equivalence]") {
  std::vector<Case> cases;
  for (int variant = 0; variant < 8; ++variant) {
    Case c{SchedulerOptions{}, variant % 2 == 0 ? 10 : 40, 120};
    c.options.preemption = variant % 4 != 3;
    c.options.intra_queue_preemption = variant == 2;
    if (variant == 4) c.options.backfill = BackfillPolicy::StrictFifo;
    if (variant == 5) c.options.scores = {{"spread", 2}, {"topology", 1}};
    if (variant == 6) c.options.permit.clear();
    if (variant == 7) c.options.max_feasible_nodes = 0;
    cases.push_back(c);
  }
  for (int variant = 8; variant < 10; ++variant) {
    Case c{SchedulerOptions{}, 160, 100, true};
    c.options.preemption = variant == 9;
    cases.push_back(c);
  }
  Recording recording(T9KSIM_SOURCE_DIR "/tests/scheduler/recorded/equivalence.txt",
                      "Recorded outputs of tests/scheduler/equivalence_test.cpp: per cycle\n"
                      "(variant, seed, round), its bindings (pod>node) and evictions.\n"
                      "Re-record with T9KSIM_RECORD_ORACLES=1 (tests/README.md); review the diff.");
  if (!recording.recording() && !recording.loaded()) FAIL(recording.unreadable());
  Differences differences;
  std::size_t bindings = 0, evictions = 0, cycles = 0;
  for (std::size_t v = 0; v < cases.size(); ++v)
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const auto [b, e] = run_history(v, seed, cases[v], recording, differences);
      bindings += b;
      evictions += e;
      cycles += static_cast<std::size_t>(cases[v].rounds);
    }
  // The histories place and preempt, or the comparison would be vacuous.
  CHECK(bindings > 1000);
  CHECK(evictions > 50);
  if (recording.recording()) {
    REQUIRE(recording.write());
    WARN("recorded " << recording.size() << " cycles to " << recording.path());
    return;
  }
  CHECK(recording.size() == cycles);  // none left unchecked
  if (!differences.empty()) FAIL_CHECK(differences.report(recording));
}
