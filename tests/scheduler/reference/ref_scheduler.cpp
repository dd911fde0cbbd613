// FROZEN REFERENCE (test only): the scheduler's cycle as it was before the incremental rewrite
// (full per-cycle reset of the overlay, every pending group attempted). The equivalence test
// compares the production scheduler's decisions with it; do not optimise or change it.
#include "reference/ref_scheduler.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "reference/ref_plugins.hpp"

namespace t9k::scheduler::reference {

namespace {

enum class Outcome { Placed, Skipped, Blocked };

// Does the failed request f fit inside r (so that r fails too)?
bool covered_by(const DenseRes& f, const SparseRes& r) {
  for (std::size_t d = 0; d < f.size(); ++d)
    if (f[d] > at(r, static_cast<Dim>(d))) return false;
  return true;
}

}  // namespace

struct ReferenceScheduler::Impl {
  SchedulerOptions opt;
  std::vector<std::unique_ptr<QueueSortPlugin>> queue_sort;
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  std::vector<std::pair<std::unique_ptr<ScorePlugin>, int>> scores;
  std::vector<std::unique_ptr<PermitPlugin>> permits;
  bool spread_walk = false;

  // ---- per-cycle scratch ----
  const ClusterSnapshot* snap = nullptr;
  CycleState st;
  Decisions out;
  std::vector<std::uint32_t> seen;
  std::uint32_t stamp = 0;
  std::vector<char>
      evicted;  // by PodId: deleted by a decision of this cycle (kPreempted: preemption)
  static constexpr char kPreempted = 2;
  // Requests that found no node this cycle, per (view epoch, queue selector, pod selector):
  // resources only shrink during a cycle, so any request covering one of them fails too (issue 5
  // "Scale"). Reservations (§8.6) differ per viewer: a memo serves only within the epoch of
  // growing views it was recorded in (CycleState::view_epoch).
  std::map<std::tuple<std::int32_t, SelectorId, SelectorId>, std::vector<DenseRes>> fail_memo;
  std::set<std::vector<std::int32_t>>
      gang_fail_memo;  // (view epoch, queue selector, sorted core shapes)
  // Nomination (§8.6) bookkeeping of the group being attempted and of this cycle's preemptors.
  bool keep_reservation = false;
  std::vector<char> nominated_now;  // by GroupId: its reservations were replaced this cycle
  std::vector<std::pair<std::size_t, GroupId>> preemptions;  // (index in out.evictions, preemptor)
  std::vector<NodeId> extra;
  std::vector<NodeId> gang_nodes;
  std::vector<PodId> pending, core, surplus;

  explicit Impl(SchedulerOptions o) : opt(std::move(o)) {
    if (auto problems = opt.validate(); !problems.empty()) throw OptionsError(problems);
    for (const auto& n : opt.queue_sort) queue_sort.push_back(make_queue_sort_plugin(n, opt));
    for (const auto& n : opt.filters) filters.push_back(make_filter_plugin(n));
    int heaviest = 0;
    for (const auto& s : opt.scores) {
      scores.emplace_back(make_score_plugin(s.name), s.weight);
      if (s.weight > heaviest) {
        heaviest = s.weight;
        spread_walk = s.name == "spread";
      }
    }
    for (const auto& n : opt.permit) permits.push_back(make_permit_plugin(n));
  }

  const PodInfo& pod(PodId p) const { return snap->pods()[static_cast<std::size_t>(p)]; }
  const GroupInfo& group(GroupId g) const { return snap->groups()[static_cast<std::size_t>(g)]; }
  const QueueInfo& queue(QueueId q) const { return snap->queues()[static_cast<std::size_t>(q)]; }
  const NodeInfo& node(NodeId n) const { return snap->nodes()[static_cast<std::size_t>(n)]; }

  // ---- placement ------------------------------------------------------------------------------

  bool memo_fails(const PodInfo& p, const QueueInfo* q) const {
    if (st.bonus_active()) return false;
    const auto it = fail_memo.find({st.view_epoch(), q ? q->selector : kNone, p.selector});
    if (it == fail_memo.end()) return false;
    for (const auto& f : it->second)
      if (covered_by(f, p.request)) return true;
    return false;
  }

  void memo_record(const PodInfo& p, const QueueInfo* q) {
    if (st.bonus_active()) return;
    auto& list = fail_memo[{st.view_epoch(), q ? q->selector : kNone, p.selector}];
    if (list.size() < 16) list.push_back(to_dense(p.request));
  }

  // Filter then score; the candidate walk follows the free-GPU index (bin-pack order) and stops
  // after max_feasible_nodes feasible nodes. Ties go to the earlier candidate.
  std::optional<NodeId> find_node(const PodInfo& p, const QueueInfo* q) {
    const std::int64_t gpu = at(p.request, kDimGpu);
    const auto& index = st.by_free_gpu();
    if (!st.bonus_active() && (index.empty() || index.rbegin()->first < gpu)) return std::nullopt;
    if (++stamp == 0) {
      std::fill(seen.begin(), seen.end(), 0);
      stamp = 1;
    }
    const PlacementContext ctx{gang_nodes};
    std::optional<NodeId> best;
    std::int64_t best_score = 0;
    int feasible = 0;
    const int limit = opt.max_feasible_nodes;
    auto consider = [&](NodeId n) {
      auto& s = seen[static_cast<std::size_t>(n)];
      if (s == stamp) return false;
      s = stamp;
      if (!node(n).present) return false;
      for (const auto& f : filters)
        if (!f->filter(st, p, q, n)) return false;
      std::int64_t score = 0;
      for (const auto& [plugin, weight] : scores) score += weight * plugin->score(st, p, n, ctx);
      if (!best || score > best_score) {
        best = n;
        best_score = score;
      }
      ++feasible;
      return limit > 0 && feasible >= limit;
    };
    extra.clear();
    for (const auto& [plugin, weight] : scores) plugin->extra_candidates(st, p, ctx, extra);
    if (st.bonus_active())
      extra.insert(extra.end(), st.bonus_nodes().begin(), st.bonus_nodes().end());
    for (const NodeId n : extra)
      if (consider(n)) return best;
    if (!spread_walk) {
      for (auto it = index.lower_bound({gpu, std::numeric_limits<NodeId>::min()});
           it != index.end(); ++it)
        if (consider(it->second)) break;
    } else {
      for (auto it = index.rbegin(); it != index.rend() && it->first >= gpu; ++it)
        if (consider(it->second)) break;
    }
    return best;
  }

  // Trial placement of `pods` (all or nothing). On success the placements stay taken in the
  // cycle state and are returned in `placed`; on failure everything is given back.
  bool trial(const std::vector<PodId>& pods, const QueueInfo* q,
             std::vector<std::pair<PodId, NodeId>>& placed) {
    placed.clear();
    gang_nodes.clear();
    for (const PodId id : pods)
      if (memo_fails(pod(id), q)) return false;
    // Largest GPU requests first: they have the fewest candidate nodes.
    std::vector<PodId> order = pods;
    std::stable_sort(order.begin(), order.end(), [&](PodId a, PodId b) {
      return at(pod(a).request, kDimGpu) > at(pod(b).request, kDimGpu);
    });
    for (const PodId id : order) {
      const auto n = find_node(pod(id), q);
      if (!n) {
        if (placed.empty()) memo_record(pod(id), q);
        rollback(placed);
        return false;
      }
      st.take(*n, pod(id).request);
      placed.emplace_back(id, *n);
      gang_nodes.push_back(*n);
    }
    return true;
  }

  void rollback(std::vector<std::pair<PodId, NodeId>>& placed) {
    for (const auto& [id, n] : placed) st.take(n, pod(id).request, -1);
    placed.clear();
    gang_nodes.clear();
  }

  void commit(const std::vector<std::pair<PodId, NodeId>>& placed) {
    for (const auto& [id, n] : placed) {
      const auto& p = pod(id);
      if (p.queue != kNone) st.add_queue_allocated(p.queue, p.request);
      out.bindings.push_back(Binding{p.key, node(n).name});
    }
    gang_nodes.clear();
  }

  bool quota_ok(QueueId q, const SparseRes& request) const {
    const auto& info = queue(q);
    if (!info.has_quota) return true;
    const auto& alloc = st.queue_allocated(q);
    // §8.7: allocated + request <= quota for every resource the quota names.
    for (const Dim d : info.quota_dims)
      if (at(alloc, d) + at(request, d) > at(info.quota, d)) return false;
    return true;
  }

  // ---- stages ---------------------------------------------------------------------------------

  void max_duration_stage(model::SimTime now) {
    const std::int64_t t = now.time_since_epoch().count();
    for (const auto& q : snap->queues()) {
      if (!q.present || !q.max_duration) continue;
      const std::int64_t limit = q.max_duration->count();
      for (const auto& [created, sequence, id] : q.live_pods) {
        if (t - created < limit) break;  // §8.8: age measured from pod creation
        evicted[static_cast<std::size_t>(id)] = 1;
        out.evictions.push_back(Eviction{pod(id).key,
                                         model::DeletionReason::MaxDuration,
                                         "pod age reached maxDuration " +
                                             std::to_string(limit / 1000000) + "s of queue " +
                                             q.name,
                                         {},
                                         {},
                                         {}});
      }
    }
  }

  int compare_queues(QueueId a, QueueId b) const {
    for (const auto& p : queue_sort)
      if (const int c = p->compare(st, a, b); c != 0) return c;
    const int c = queue(a).name.compare(queue(b).name);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }

  void t9k_stage() {
    using Iter = std::set<GroupOrderKey>::const_iterator;
    std::vector<Iter> cursor(snap->queues().size());
    auto after = [this](QueueId a, QueueId b) { return compare_queues(a, b) > 0; };
    std::priority_queue<QueueId, std::vector<QueueId>, decltype(after)> heap(after);
    for (const auto& [neg_prio, q] : snap->queues_by_priority()) {
      const auto& info = queue(q);
      if (info.pending_groups.empty()) continue;
      cursor[static_cast<std::size_t>(q)] = info.pending_groups.begin();
      heap.push(q);
    }
    const bool strict = opt.backfill == BackfillPolicy::StrictFifo;
    while (!heap.empty()) {
      const QueueId q = heap.top();
      heap.pop();
      auto& it = cursor[static_cast<std::size_t>(q)];
      const GroupId g = group_of(*it);
      ++it;
      const Outcome o = attempt_group(q, g);
      if (o == Outcome::Blocked && strict) continue;  // §11 Q11 option: the queue waits
      if (it != queue(q).pending_groups.end()) heap.push(q);
    }
  }

  void collect_pending(const GroupInfo& g) {
    pending.clear();
    for (const PodId p : g.pods)
      if (pod(p).state == PodState::Pending && !evicted[static_cast<std::size_t>(p)])
        pending.push_back(p);
  }

  // §8.4: the minMember core, honouring each role's minimum first; the rest is surplus.
  void split_core(const GroupInfo& g) {
    core.clear();
    surplus.clear();
    const std::int32_t need = std::max<std::int32_t>(0, g.min_member - g.n_bound - g.n_succeeded);
    std::vector<char> taken(pending.size(), 0);
    for (const auto& role : g.roles) {
      std::int32_t k = 0;
      for (std::size_t i = 0; i < pending.size() && k < role.min_member; ++i) {
        if (taken[i] || pod(pending[i]).role != role.name) continue;
        taken[i] = 1;
        ++k;
      }
    }
    std::int32_t count = 0;
    for (std::size_t i = 0; i < pending.size(); ++i) count += taken[i];
    for (std::size_t i = 0; i < pending.size() && count < need; ++i)
      if (!taken[i]) {
        taken[i] = 1;
        ++count;
      }
    for (std::size_t i = 0; i < pending.size(); ++i)
      (taken[i] ? core : surplus).push_back(pending[i]);
  }

  bool place_individually(QueueId q, PodId id) {
    const auto& p = pod(id);
    if (!quota_ok(q, p.request)) return false;
    std::vector<std::pair<PodId, NodeId>> placed;
    if (!trial({id}, &queue(q), placed)) return false;
    commit(placed);
    return true;
  }

  // §8.6 nomination: the group sees only reservations of groups it does not outrank as used.
  // Its own reservation survives the attempt only if it still waits for it (it preempted, or
  // the resources coming back suffice); placed, or unable to use it now, it is released for the
  // rest of the cycle (the snapshot drops it once the group is bound).
  Outcome attempt_group(QueueId q, GroupId gid) {
    const GroupInfo& g = group(gid);
    st.set_viewer(Viewer{false, gid, q, queue(q).priority, g.order_key(gid)});
    keep_reservation = false;
    const Outcome o = attempt_group_views(q, gid);
    if (!keep_reservation && st.has_reservation(gid)) st.release_reservations(gid);
    return o;
  }

  Outcome attempt_group_views(QueueId q, GroupId gid) {
    const GroupInfo& g = group(gid);
    const QueueInfo& qi = queue(q);
    if (!g.present || !qi.present) return Outcome::Skipped;  // waits for its PodGroup / queue
    collect_pending(g);
    if (pending.empty()) return Outcome::Skipped;
    // A group preempted earlier in this cycle waits for the next one: placing its pending pods
    // now, while its bound pods are being deleted, would leave a gang cut below minMember.
    for (const PodId p : g.pods)
      if (pod(p).state == PodState::Bound && evicted[static_cast<std::size_t>(p)] == kPreempted)
        return Outcome::Skipped;
    const bool gang = !permits.empty();
    // §11 Q10: a group already running (or partly finished) places its pods one by one.
    const bool running = g.n_bound + g.n_succeeded > 0;
    if (!gang || running) {
      const std::int32_t need = std::max<std::int32_t>(0, g.min_member - g.n_bound - g.n_succeeded);
      bool blocked = false;
      const std::vector<PodId> todo = pending;
      for (std::size_t i = 0; i < todo.size(); ++i) {
        if (place_individually(q, todo[i])) continue;
        const bool required = static_cast<std::int32_t>(i) < need;
        blocked = blocked || required;
        // Replacements that restore a running gang may preempt; elastic surplus never does.
        if (required && opt.preemption && quota_ok(q, pod(todo[i]).request))
          try_preempt(q, gid, {todo[i]});
      }
      return blocked ? Outcome::Blocked : Outcome::Placed;
    }
    for (const auto& pm : permits)
      if (!pm->ready(*snap, g, pending)) return Outcome::Skipped;  // §8.3: too few members yet
    split_core(g);
    SparseRes total;
    {
      DenseRes sum;
      for (const PodId p : core) add(sum, pod(p).request);
      for (std::size_t d = 0; d < sum.size(); ++d)
        if (sum[d] != 0) total.emplace_back(static_cast<Dim>(d), sum[d]);
    }
    // §8.6: quota is checked before, and independently of, preemption (C2 of the example).
    if (!quota_ok(q, total)) return Outcome::Blocked;
    std::vector<std::int32_t> signature{st.view_epoch(), qi.selector};
    for (const PodId p : core) signature.push_back(pod(p).shape);
    std::sort(signature.begin() + 2, signature.end());
    std::vector<std::pair<PodId, NodeId>> placed;
    bool ok = false;
    if (!gang_fail_memo.count(signature)) {
      ok = trial(core, &qi, placed);
      for (const auto& pm : permits) ok = ok && pm->permit(core.size(), placed.size());
      if (!ok) {
        rollback(placed);
        gang_fail_memo.insert(signature);
      }
    }
    if (!ok) {
      if (opt.preemption) try_preempt(q, gid, core);
      return Outcome::Blocked;
    }
    commit(placed);
    // §8.4 [INFERRED]: the elastic surplus goes one by one, best effort, after the gang.
    const std::vector<PodId> extra_pods = surplus;
    for (const PodId p : extra_pods) place_individually(q, p);
    return Outcome::Placed;
  }

  // ---- preemption (§8.6, §11 Q9) --------------------------------------------------------------

  struct Unit {
    GroupId group;
    std::vector<PodId> pods;
    bool whole;
    bool active = true;
  };

  bool covers_total(const std::vector<PodId>& pods) const {
    DenseRes need;
    for (const PodId p : pods) add(need, pod(p).request);
    for (std::size_t d = 0; d < need.size(); ++d)
      if (need[d] > st.total_free(static_cast<Dim>(d))) return false;
    return true;
  }

  bool fits_with_bonus(const std::vector<PodId>& pods, const QueueInfo* q) {
    if (!covers_total(pods)) return false;
    std::vector<std::pair<PodId, NodeId>> placed;
    const bool ok = trial(pods, q, placed);
    rollback(placed);
    return ok;
  }

  void bonus_unit(const Unit& u, std::int64_t sign) {
    for (const PodId p : u.pods) st.add_bonus(pod(p).node, pod(p).request, sign);
  }

  void try_preempt(QueueId q, GroupId gid, const std::vector<PodId>& pods) {
    const QueueInfo& qi = queue(q);
    const GroupInfo& g = group(gid);
    // Resources of pods already terminating count as coming back: if they suffice, wait for
    // them instead of choosing more victims (no cascade while victims shut down).
    for (const NodeId n : snap->nodes_with_terminating())
      st.add_bonus_dense(n, node(n).terminating);
    st.set_bonus_active(true);
    if (fits_with_bonus(pods, &qi)) {
      st.clear_bonus();
      keep_reservation = true;  // it waits for them: its reservation still serves
      return;
    }
    // Victim queues: strictly lower priority and preemptible (§8.6), plus the own queue with
    // intra-queue preemption (§11 Q9 option); lowest priority first, then the larger dominant
    // share (the queue furthest over its fair share gives back first: A, not B, in the §8.6
    // example), then name.
    std::vector<QueueId> victims_q;
    for (QueueId v = 0; v < static_cast<QueueId>(snap->queues().size()); ++v) {
      const auto& vi = queue(v);
      if (!vi.present || vi.running_groups.empty()) continue;
      if (v == q ? opt.intra_queue_preemption : (vi.priority < qi.priority && vi.preemptible))
        victims_q.push_back(v);
    }
    std::sort(victims_q.begin(), victims_q.end(), [&](QueueId a, QueueId b) {
      const auto& A = queue(a);
      const auto& B = queue(b);
      if (A.priority != B.priority) return A.priority < B.priority;
      const int c = compare_shares(dominant_share(st, a, opt.drf_denominator),
                                   dominant_share(st, b, opt.drf_denominator));
      if (c != 0) return c > 0;
      return A.name < B.name;
    });
    std::vector<Unit> units;
    bool fits = false;
    for (const QueueId v : victims_q) {
      for (const auto& key : queue(v).running_groups) {  // lower priority, then newest (§11 Q9)
        const GroupId vg = group_of(key);
        const GroupInfo& vgi = group(vg);
        if (vg == gid) continue;
        if (v == q && vgi.priority >= g.priority) continue;  // intra-queue: strictly lower only
        std::vector<PodId> bound;
        for (const PodId p : vgi.pods)
          if (pod(p).state == PodState::Bound && !evicted[static_cast<std::size_t>(p)] &&
              pod(p).node != kNone)
            bound.push_back(p);
        if (bound.empty()) continue;
        std::sort(bound.begin(), bound.end(), [&](PodId a, PodId b) {
          return std::tuple(pod(a).creation, pod(a).sequence, a) >
                 std::tuple(pod(b).creation, pod(b).sequence, b);
        });
        // Elastic surplus first, pod by pod, newest first; never below minMember without
        // evicting the whole group (§11 Q9, §8.4 Volcano gang rule).
        const std::size_t surplus_n = bound.size() > static_cast<std::size_t>(vgi.min_member)
                                          ? bound.size() - static_cast<std::size_t>(vgi.min_member)
                                          : 0;
        for (std::size_t i = 0; i < surplus_n && !fits; ++i) {
          units.push_back(Unit{vg, {bound[i]}, false});
          bonus_unit(units.back(), 1);
          fits = fits_with_bonus(pods, &qi);
        }
        if (fits) break;
        // The whole group: subsumes its surplus units.
        Unit whole{vg, {}, true};
        for (auto& u : units)
          if (u.group == vg && u.active) {
            bonus_unit(u, -1);
            u.active = false;
          }
        whole.pods = bound;
        units.push_back(std::move(whole));
        bonus_unit(units.back(), 1);
        fits = fits_with_bonus(pods, &qi);
        if (fits) break;
      }
      if (fits) break;
    }
    if (!fits) {
      st.clear_bonus();
      return;
    }
    // Reprieve: give back, highest-ranked first, every unit the gang can do without.
    for (std::size_t i = units.size(); i-- > 0;) {
      if (!units[i].active) continue;
      bonus_unit(units[i], -1);
      if (fits_with_bonus(pods, &qi))
        units[i].active = false;
      else
        bonus_unit(units[i], 1);
    }
    // §8.6 nomination: the placement the gang will take once its victims are gone is reserved
    // (in this cycle at once; in the snapshot when the world applies the evictions). The first
    // plan of the cycle replaces the group's older reservations; later ones (replacement pods of
    // a running gang, one by one) add to it.
    std::map<NodeId, DenseRes> plan;
    {
      std::vector<std::pair<PodId, NodeId>> placed;
      if (trial(pods, &qi, placed))  // the state the reprieve left fits, so this succeeds
        for (const auto& [id, n] : placed) add(plan[n], pod(id).request);
      rollback(placed);
    }
    st.clear_bonus();
    if (!nominated_now[static_cast<std::size_t>(gid)]) {
      nominated_now[static_cast<std::size_t>(gid)] = 1;
      st.release_reservations(gid);
    }
    for (const auto& [n, amount] : plan) {
      SparseRes r;
      for (std::size_t d = 0; d < amount.size(); ++d)
        if (amount[d] != 0) r.emplace_back(static_cast<Dim>(d), amount[d]);
      st.add_reservation(
          CycleReservation{gid, q, qi.priority, g.order_key(gid), n, std::move(r), true});
    }
    keep_reservation = true;
    const std::string msg = "preempted by " + g.key + " of queue " + qi.name + " (priority " +
                            std::to_string(qi.priority) + ")";
    for (const auto& u : units) {
      if (!u.active) continue;
      for (const PodId p : u.pods) {
        evicted[static_cast<std::size_t>(p)] = kPreempted;
        preemptions.emplace_back(out.evictions.size(), gid);
        out.evictions.push_back(Eviction{
            pod(p).key, model::DeletionReason::Preemption, msg, g.key, node(pod(p).node).name, {}});
      }
    }
  }

  // Each preemption eviction carries its preemptor's whole plan as it stands at the end of the
  // cycle, so that ClusterSnapshot::nominate may be called once per eviction (§8.6 nomination).
  void attach_plans() {
    std::map<GroupId, std::vector<NodeReservation>> plans;
    for (const auto& [i, gid] : preemptions) {
      auto [it, fresh] = plans.try_emplace(gid);
      if (fresh) {
        std::map<NodeId, DenseRes> per_node;
        for (const auto& r : st.reservations())
          if (r.active && r.group == gid) add(per_node[r.node], r.amount);
        for (const auto& [n, amount] : per_node)
          it->second.push_back(NodeReservation{node(n).name, snap->resources().to_list(amount)});
      }
      out.evictions[i].reservations = it->second;
    }
  }

  void default_stage() {
    // Default-scheduler pods are outranked by every T9k reservation (§8.6 nomination): what a
    // preemptor evicted for must not go to a pod it cannot preempt back.
    st.set_viewer(Viewer{});
    for (const auto& key : snap->default_pending()) {
      const PodId id = pod_of(key);
      if (evicted[static_cast<std::size_t>(id)]) continue;
      const auto& p = pod(id);
      if (memo_fails(p, nullptr)) continue;
      gang_nodes.clear();
      const auto n = find_node(p, nullptr);
      if (!n) {
        memo_record(p, nullptr);
        continue;
      }
      st.take(*n, p.request);
      out.bindings.push_back(Binding{p.key, node(*n).name});
    }
  }

  Decisions run(const ClusterSnapshot& s, model::SimTime now) {
    snap = &s;
    st.reset(s);
    out = Decisions{};
    seen.assign(s.nodes().size(), 0);
    stamp = 0;
    evicted.assign(s.pods().size(), 0);
    fail_memo.clear();
    gang_fail_memo.clear();
    nominated_now.assign(s.groups().size(), 0);
    preemptions.clear();
    max_duration_stage(now);
    t9k_stage();
    default_stage();
    attach_plans();
    snap = nullptr;
    return std::move(out);
  }
};

ReferenceScheduler::ReferenceScheduler(SchedulerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
ReferenceScheduler::~ReferenceScheduler() = default;

Decisions ReferenceScheduler::schedule(const ClusterSnapshot& snapshot, model::SimTime now) {
  return impl_->run(snapshot, now);
}

}  // namespace t9k::scheduler::reference
