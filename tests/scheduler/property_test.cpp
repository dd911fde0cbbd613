// Properties over random snapshots (issue 5 point 6): no node over-allocated, no queue over
// quota, no gang partially bound, whatever the options.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "fixtures.hpp"

using namespace t9k::scheduler;
using namespace t9k::scheduler::testing;

namespace {

struct GroupSpec {
  std::string queue;
  int min_member;
  std::vector<std::string> pods;
  ResourceList request;
};

void check_invariants(const TestWorld& w, const std::map<std::string, GroupSpec>& groups,
                      const std::map<std::string, ResourceList>& quotas) {
  const auto& s = w.snap;
  for (const auto& n : s.nodes()) {
    if (!n.present) continue;
    for (std::size_t d = 0; d < s.resources().size(); ++d)
      REQUIRE(at(n.used, static_cast<Dim>(d)) <= at(n.allocatable, static_cast<Dim>(d)));
  }
  for (const auto& [qname, quota] : quotas) {
    const auto& q = s.queues()[static_cast<std::size_t>(*s.find_queue(qname))];
    for (const auto& [rname, qty] : quota)
      REQUIRE(at(q.allocated, *s.resources().find(rname)) <= qty.milli());
  }
  for (const auto& [gname, g] : groups) {
    int bound = 0;
    for (const auto& p : g.pods)
      if (w.pods.count(p) && !w.pods.at(p).node_name.empty()) ++bound;
    INFO("group " << gname);
    REQUIRE((bound == 0 || bound >= g.min_member));
  }
}

}  // namespace

TEST_CASE("property: random snapshots never over-allocate, exceed quota or split a gang",
          "[property]") {
  std::size_t total_bindings = 0, total_evictions = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Rand r{seed};
    TestWorld w;
    const int nodes = r.uniform(2, 12);
    for (int i = 0; i < nodes; ++i)
      w.add_node("n" + std::to_string(i), res(r.uniform(8, 64), r.uniform(0, 8), 64),
                 "r" + std::to_string(i / 3), "s" + std::to_string(i / 6));
    std::map<std::string, ResourceList> quotas;
    const int queues = r.uniform(1, 4);
    for (int i = 0; i < queues; ++i) {
      const std::string q = "q" + std::to_string(i);
      std::optional<ResourceList> quota;
      if (r.uniform(0, 1)) {
        quota = res(r.uniform(8, 200), r.uniform(1, 40));
        quotas[q] = *quota;
      }
      w.add_queue(q, r.uniform(0, 3), quota, r.uniform(0, 3) != 0);
    }
    std::map<std::string, GroupSpec> groups;
    SchedulerOptions o;
    o.preemption = seed % 2 == 0;
    o.intra_queue_preemption = o.preemption && seed % 4 == 0;
    o.backfill = seed % 3 == 0 ? BackfillPolicy::StrictFifo : BackfillPolicy::SkipAndContinue;
    o.scores = seed % 5 == 0 ? std::vector<WeightedScore>{{"spread", 2}, {"topology", 1}}
                             : std::vector<WeightedScore>{{"bin-pack", 1}, {"topology", 1}};
    Scheduler s(o);
    int next_group = 0;
    for (int round = 0; round < 12; ++round) {
      INFO("seed " << seed << " round " << round);
      // New jobs arrive.
      const int arrivals = r.uniform(0, 4);
      for (int a = 0; a < arrivals; ++a) {
        const std::string g = "g" + std::to_string(next_group++);
        GroupSpec spec{"q" + std::to_string(r.uniform(0, queues - 1)), r.uniform(1, 4), {}, {}};
        const int size = spec.min_member + r.uniform(0, 2);
        w.add_group(g, spec.queue, spec.min_member, r.uniform(0, 5));
        const ResourceList req = res(r.uniform(1, 8), r.uniform(0, 4));
        spec.request = req;
        for (int k = 0; k < size; ++k) {
          spec.pods.push_back(g + "-" + std::to_string(k));
          w.add_pod(spec.pods.back(), g, req);
        }
        groups[g] = spec;
      }
      const auto d = s.schedule(w.snap, sec(1000 + round));
      w.apply(d);
      total_bindings += d.bindings.size();
      total_evictions += d.evictions.size();
      // Evicted pods are recreated by their job (the cascade of §8.6).
      for (const auto& e : d.evictions) {
        const std::string g = e.pod.substr(0, e.pod.find('-'));
        auto& spec = groups.at(g);
        const std::string name = e.pod + "r";
        spec.pods.push_back(name);
        w.add_pod(name, g, spec.request);
      }
      // Evictions are whole gangs or surplus pods: check before the recreated pods run.
      check_invariants(w, groups, quotas);
      // Some whole jobs finish.
      for (auto it = groups.begin(); it != groups.end();) {
        bool running = false;
        for (const auto& p : it->second.pods)
          running = running || (w.pods.count(p) && !w.pods.at(p).node_name.empty());
        if (running && r.uniform(0, 3) == 0) {
          w.remove_group(it->first, it->second.pods);
          it = groups.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  // The cases exercise both placement and preemption, or the properties would hold vacuously.
  CHECK(total_bindings > 100);
  CHECK(total_evictions > 0);
}

TEST_CASE(
    "property: with graceful termination, no pod is evicted twice for the same preemptor "
    "while nothing else changes (§8.6 nomination)",
    "[property][nomination]") {
  std::size_t total_evictions = 0, waiting_cycles = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Rand r{seed * 7919};
    TestWorld w;
    const int nodes = r.uniform(2, 8);
    for (int i = 0; i < nodes; ++i)
      w.add_node("n" + std::to_string(i), res(r.uniform(16, 64), r.uniform(2, 8), 64),
                 "r" + std::to_string(i / 3), "s" + std::to_string(i / 6));
    std::map<std::string, ResourceList> quotas;
    const int queues = r.uniform(2, 4);
    for (int i = 0; i < queues; ++i) {
      const std::string q = "q" + std::to_string(i);
      std::optional<ResourceList> quota;
      if (r.uniform(0, 3) == 0) {
        quota = res(r.uniform(16, 200), r.uniform(4, 40));
        quotas[q] = *quota;
      }
      w.add_queue(q, r.uniform(0, 3), quota, r.uniform(0, 4) != 0);
    }
    SchedulerOptions o;
    o.preemption = true;
    o.backfill = seed % 3 == 0 ? BackfillPolicy::StrictFifo : BackfillPolicy::SkipAndContinue;
    Scheduler s(o);
    std::map<std::string, GroupSpec> groups;
    std::map<std::string, int> finish_at;  // terminating pod -> round it is gone
    // (victim lineage, preemptor) evicted since the last change other than terminations and
    // recreations: the livelock of the bug report repeats exactly such a pair.
    std::set<std::pair<std::string, std::string>> evicted_since_change;
    int next_group = 0;
    for (int round = 0; round < 30; ++round) {
      INFO("seed " << seed << " round " << round);
      if (round % 6 == 0) {  // a change: jobs arrive, some finish
        evicted_since_change.clear();
        for (int a = r.uniform(1, 4); a > 0; --a) {
          const std::string g = "g" + std::to_string(next_group++);
          GroupSpec spec{"q" + std::to_string(r.uniform(0, queues - 1)), r.uniform(1, 3), {}, {}};
          w.add_group(g, spec.queue, spec.min_member, r.uniform(0, 5));
          spec.request = res(r.uniform(1, 8), r.uniform(1, 4));
          for (int k = spec.min_member + r.uniform(0, 1); k > 0; --k) {
            spec.pods.push_back(g + "-" + std::to_string(k));
            w.add_pod(spec.pods.back(), g, spec.request);
          }
          groups[g] = spec;
        }
        for (auto it = groups.begin(); it != groups.end();) {
          bool running = false;
          for (const auto& p : it->second.pods)
            running = running || (w.pods.count(p) && !w.pods.at(p).node_name.empty());
          if (running && r.uniform(0, 4) == 0) {
            for (const auto& p : it->second.pods)
              if (w.pods.count(p)) w.finish(p);
            w.snap.remove_pod_group(it->first);
            it = groups.erase(it);
          } else {
            ++it;
          }
        }
      }
      // Victims finish their graceful termination, 1 to 3 rounds after eviction.
      for (auto it = finish_at.begin(); it != finish_at.end();) {
        if (it->second <= round || !w.pods.count(it->first)) {
          if (w.pods.count(it->first)) w.finish(it->first);
          it = finish_at.erase(it);
        } else {
          ++it;
        }
      }
      const auto d = s.schedule(w.snap, sec(1000 + round));
      w.apply_graceful(d);
      total_evictions += d.evictions.size();
      if (d.evictions.empty() && !w.snap.nominated_groups().empty()) ++waiting_cycles;
      for (const auto& e : d.evictions) {
        std::string lineage = e.pod;
        while (lineage.back() == 'r') lineage.pop_back();
        INFO("pod " << e.pod << " preempted by " << e.preemptor);
        CHECK(evicted_since_change.insert({lineage, e.preemptor}).second);
        finish_at[e.pod] = round + r.uniform(1, 3);
        // The job recreates the pod at once, under a new name while the old one terminates.
        const std::string g = e.pod.substr(0, e.pod.find('-'));
        auto& spec = groups.at(g);
        spec.pods.push_back(e.pod + "r");
        w.add_pod(spec.pods.back(), g, spec.request);
      }
      // Nodes never over-allocated (terminating pods still count), quotas hold.
      for (const auto& n : w.snap.nodes())
        if (n.present)
          for (std::size_t dim = 0; dim < w.snap.resources().size(); ++dim)
            REQUIRE(at(n.used, static_cast<Dim>(dim)) <= at(n.allocatable, static_cast<Dim>(dim)));
      for (const auto& [qname, quota] : quotas) {
        const auto& q = w.snap.queues()[static_cast<std::size_t>(*w.snap.find_queue(qname))];
        for (const auto& [rname, qty] : quota)
          REQUIRE(at(q.allocated, *w.snap.resources().find(rname)) <= qty.milli());
      }
    }
  }
  // Preemptors did preempt, and did wait for their victims holding their reservations.
  CHECK(total_evictions > 0);
  CHECK(waiting_cycles > 0);
}
