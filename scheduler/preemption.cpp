// Preemption (§8.6, §11 Q9): the victims that would let a group be placed, chosen by trial, and the
// nominations of their preemptors.
#include "scheduler/detail/cycle.hpp"

#include <algorithm>
#include <limits>

namespace t9k::scheduler {

using namespace detail;

bool Scheduler::Impl::covers_total(const std::vector<PodId>& pods) const {
  DenseRes need;
  for (const PodId p : pods) add(need, pod(p).request);
  // The totals do not count the whole GPUs that shares coming back would free, nor the rooms
  // of used slots: with shares anywhere, GPUs are left to the trial.
  const bool shares = snap->shared_pod_count() > 0;
  for (std::size_t d = 0; d < need.size(); ++d)
    if (!(shares && d == static_cast<std::size_t>(kDimGpu)) &&
        need[d] > st.total_free(static_cast<Dim>(d)))
      return false;
  return true;
}

bool Scheduler::Impl::fits_with_bonus(const std::vector<PodId>& pods, const QueueInfo* q) {
  trial_failed = false;
  if (!covers_total(pods)) return false;
  const bool ok = trial(pods, q, placed_bonus);
  rollback(placed_bonus);
  trial_failed = !ok;
  return ok;
}

// Could a node of `u` (just added to the bonus) take one of `pods` now?
bool Scheduler::Impl::unit_may_help(const Unit& u, const std::vector<PodId>& pods) const {
  for (const PodId v : u.pods)
    for (const PodId p : pods)
      if (st.fits_pod(pod(v).node, pod(p))) return true;
  return false;
}

// How many copies of `p` node n holds in the current view, by resources alone.
std::int64_t Scheduler::Impl::copies(NodeId n, const PodInfo& p) const {
  std::int64_t c = std::numeric_limits<std::int64_t>::max();
  for (const auto& [d, q] : p.request)
    if (q > 0) c = std::min(c, st.free(n, d) / q);
  return std::max<std::int64_t>(0, c);
}

// fits_with_bonus right after `u` joined the bonus, every earlier state having failed: for one
// pod only the nodes of `u` can have become feasible (bonus_only_extra), so only they are tried.
// For a gang, when the trial before `u` joined failed and no node of `u` can take any of its
// pods now, the trial would fail again: each find_node turns u's nodes away (a trial's
// placements only take), every other node is as it was, so each pod goes where it went before
// and the same pod finds nothing. Victims are mostly small, so most units skip the trial.
bool Scheduler::Impl::fits_with_bonus_after(const Unit& u, const std::vector<PodId>& pods,
                                            const QueueInfo* q) {
  if (pods.size() != 1) {
    if (trial_failed && !unit_may_help(u, pods)) return false;
    return fits_with_bonus(pods, q);
  }
  hint.clear();
  for (const PodId p : u.pods) hint.push_back(pod(p).node);
  const bool ok = fits_with_bonus(pods, q);
  hint.clear();
  return ok;
}

void Scheduler::Impl::bonus_unit(const Unit& u, std::int64_t sign) {
  for (const PodId p : u.pods) st.add_bonus_pod(pod(p), sign);
}

void Scheduler::Impl::try_preempt(QueueId q, GroupId gid, const std::vector<PodId>& pods) {
  const QueueInfo& qi = queue(q);
  const bool memo = pods.size() == 1 && !opt.intra_queue_preemption;
  const std::tuple<std::int32_t, SelectorId, SelectorId> memo_key{
      st.view_epoch(), qi.selector, memo ? pod(pods[0]).selector : kNone};
  if (memo) {
    const auto it = preempt_fail_memo.find(memo_key);
    if (it != preempt_fail_memo.end())
      for (const auto& [prio, f] : it->second)
        if (qi.priority <= prio && covered_by(f, pod(pods[0]).request)) return;
  }
  // Resources of pods already terminating count as coming back: if they suffice, wait for
  // them instead of choosing more victims (no cascade while victims shut down).
  for (const NodeId n : snap->nodes_with_terminating()) st.add_terminating_bonus(n);
  st.set_bonus_active(true);
  if (fits_with_bonus(pods, &qi)) {
    st.clear_bonus();
    keep_reservation = true;  // it waits for them: its reservation still serves
    return;
  }
  std::vector<Unit> units;
  if (!choose_victims(victim_queues(q), q, gid, pods, units)) {
    st.clear_bonus();
    if (memo) {
      auto& list = preempt_fail_memo[memo_key];
      if (list.size() < 16) list.emplace_back(qi.priority, to_dense(pod(pods[0]).request));
    }
    return;
  }
  reprieve(units, pods, qi);
  nominate_and_evict(q, gid, pods, units);
}

// Victim queues: strictly lower priority and preemptible (§8.6), plus the own queue with
// intra-queue preemption (§11 Q9 option); lowest priority first, then the larger dominant share
// (the queue furthest over its fair share gives back first: A, not B, in the §8.6 example), then
// name.
std::vector<QueueId> Scheduler::Impl::victim_queues(QueueId q) {
  const QueueInfo& qi = queue(q);
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
  return victims_q;
}

// Victims from `victims_q` in order, unit by unit (a running group's elastic surplus pod by pod,
// then the whole group), each one's resources added to the trial's bonus, until the pods of group
// `gid` fit; false when they never do.
bool Scheduler::Impl::choose_victims(const std::vector<QueueId>& victims_q, QueueId q, GroupId gid,
                                     const std::vector<PodId>& pods, std::vector<Unit>& units) {
  const QueueInfo& qi = queue(q);
  const GroupInfo& g = group(gid);
  for (const QueueId v : victims_q) {
    const auto& running = queue(v).running_groups;
    auto& from = victims_from[static_cast<std::size_t>(v)];
    if (!victims_from_set[static_cast<std::size_t>(v)]) {
      victims_from_set[static_cast<std::size_t>(v)] = 1;
      victims_from_list.push_back(v);
      from = running.begin();
    }
    bool leading = true;  // every group before this one is wholly evicted this cycle
    for (auto it = from; it != running.end(); ++it) {  // lower priority, then newest (§11 Q9)
      const GroupId vg = group_of(*it);
      const GroupInfo& vgi = group(vg);
      std::vector<PodId> bound;
      for (const PodId p : vgi.pods)
        if (pod(p).state == PodState::Bound && !evicted[static_cast<std::size_t>(p)] &&
            pod(p).node != kNone)
          bound.push_back(p);
      if (bound.empty()) {
        // Wholly evicted by this cycle: every later hunt would skip it too.
        if (leading) from = std::next(it);
        continue;
      }
      leading = false;
      if (vg == gid) continue;
      if (v == q && vgi.priority >= g.priority) continue;  // intra-queue: strictly lower only
      std::sort(bound.begin(), bound.end(), [&](PodId a, PodId b) {
        return std::tuple(pod(a).creation, pod(a).sequence, a) >
               std::tuple(pod(b).creation, pod(b).sequence, b);
      });
      // Elastic surplus first, pod by pod, newest first; never below minMember without
      // evicting the whole group (§11 Q9, §8.4 Volcano gang rule).
      const std::size_t surplus_n = bound.size() > static_cast<std::size_t>(vgi.min_member)
                                        ? bound.size() - static_cast<std::size_t>(vgi.min_member)
                                        : 0;
      for (std::size_t i = 0; i < surplus_n; ++i) {
        units.push_back(Unit{vg, {bound[i]}, false});
        bonus_unit(units.back(), 1);
        if (fits_with_bonus_after(units.back(), pods, &qi)) return true;
      }
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
      if (fits_with_bonus_after(units.back(), pods, &qi)) return true;
    }
  }
  return false;
}

void Scheduler::Impl::reprieve(std::vector<Unit>& units, const std::vector<PodId>& pods,
                               const QueueInfo& qi) {
  // Reprieve: give back, highest-ranked first, every unit the gang can do without.
  // Identical whole-GPU pods fit exactly when the candidate nodes hold, together, as many
  // copies as there are pods (each placement takes one copy of one node, whatever the order;
  // every node with a copy is a candidate). So when giving a unit back leaves each of its nodes
  // with as many copies as before, the state still fits (it fitted before) and the trial is
  // not needed; covers_total is still asked, as fits_with_bonus would.
  const PodInfo& first = pod(pods.front());
  bool identical = first.gpu_share == 0 && at(first.request, kDimGpu) > 0;
  for (const PodId p : pods)
    identical = identical && pod(p).shape == first.shape && pod(p).gpu_share == 0;
  std::vector<std::pair<NodeId, std::int64_t>> before;
  for (std::size_t i = units.size(); i-- > 0;) {
    if (!units[i].active) continue;
    before.clear();
    if (identical)
      for (const PodId v : units[i].pods)
        before.emplace_back(pod(v).node, copies(pod(v).node, first));
    bonus_unit(units[i], -1);
    const bool same = identical && std::all_of(before.begin(), before.end(), [&](const auto& b) {
                        return copies(b.first, first) == b.second;
                      });
    if (same ? covers_total(pods) : fits_with_bonus(pods, &qi))
      units[i].active = false;
    else
      bonus_unit(units[i], 1);
  }
}

void Scheduler::Impl::nominate_and_evict(QueueId q, GroupId gid, const std::vector<PodId>& pods,
                                         const std::vector<Unit>& units) {
  const QueueInfo& qi = queue(q);
  const GroupInfo& g = group(gid);
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
    nominated_now_list.push_back(gid);
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
  const std::string msg = "preempted by " + g.key.str() + " of queue " + qi.name + " (priority " +
                          std::to_string(qi.priority) + ")";
  for (const auto& u : units) {
    if (!u.active) continue;
    for (const PodId p : u.pods) {
      mark_evicted(p, kPreempted);
      preemptions.emplace_back(out.evictions.size(), gid);
      out.evictions.push_back(Eviction{pod(p).key.str(),
                                       model::DeletionReason::Preemption,
                                       msg,
                                       g.key.str(),
                                       node(pod(p).node).name,
                                       {}});
    }
  }
}

// Each preemption eviction carries its preemptor's whole plan as it stands at the end of the
// cycle, so that ClusterSnapshot::nominate may be called once per eviction (§8.6 nomination).
void Scheduler::Impl::attach_plans() {
  if (preemptions.empty()) return;
  // One pass over the cycle's reservations, kept for the groups that preempted.
  std::map<GroupId, std::map<NodeId, DenseRes>> per_group;
  for (const auto& [i, gid] : preemptions) per_group.try_emplace(gid);
  for (const auto& r : st.reservations()) {
    if (!r.active) continue;
    const auto it = per_group.find(r.group);
    if (it != per_group.end()) add(it->second[r.node], r.amount);
  }
  std::map<GroupId, std::vector<NodeReservation>> plans;
  for (const auto& [gid, per_node] : per_group) {
    auto& plan = plans[gid];
    for (const auto& [n, amount] : per_node)
      plan.push_back(NodeReservation{node(n).name, snap->resources().to_list(amount)});
  }
  for (const auto& [i, gid] : preemptions) out.evictions[i].reservations = plans.at(gid);
}

}  // namespace t9k::scheduler
