// One scheduling cycle (docs/scheduler.md): maxDuration evictions, the T9k queues in §8.5 order
// with gang attempts, then the default scheduler's pods.
#include "scheduler/detail/cycle.hpp"

#include <algorithm>
#include <limits>

namespace t9k::scheduler {

using namespace detail;

Scheduler::Impl::Impl(SchedulerOptions o) : opt(std::move(o)) {
  if (auto problems = opt.validate(); !problems.empty()) throw OptionsError(problems);
  for (const auto& n : opt.queue_sort) queue_sort.push_back(make_queue_sort_stage(n, opt));
  for (const auto& n : opt.filters) {
    filters.push_back(make_filter_stage(n));
    filter_kinds.push_back(filter_kind_of(n));
  }
  int heaviest = 0;
  for (const auto& s : opt.scores) {
    scores.emplace_back(make_score_stage(s.name), s.weight);
    if (s.weight > heaviest) {
      heaviest = s.weight;
      spread_walk = s.name == "spread";
    }
  }
  for (const auto& n : opt.permit) permits.push_back(make_permit_stage(n));
  gang_permit_only = permits.size() == 1 && permits.front()->name() == "gang";
}

void Scheduler::Impl::max_duration_stage(model::SimTime now) {
  const std::int64_t t = now.time_since_epoch().count();
  for (const auto& q : snap->queues()) {
    if (!q.present || !q.max_duration) continue;
    const std::int64_t limit = q.max_duration->count();
    for (const auto& [created, sequence, id] : q.live_pods) {
      if (t - created < limit) break;  // §8.8: age measured from pod creation
      mark_evicted(id, 1);
      out.evictions.push_back(Eviction{
          pod(id).key.str(),
          model::DeletionReason::MaxDuration,
          "pod age reached maxDuration " + std::to_string(limit / 1000000) + "s of queue " + q.name,
          {},
          {},
          {}});
    }
  }
}

int Scheduler::Impl::compare_queues(QueueId a, QueueId b) const {
  for (const auto& p : queue_sort)
    if (const int c = p->compare(st, a, b); c != 0) return c;
  const int c = queue(a).name.compare(queue(b).name);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Could a failing group of q look for victims (try_preempt does something only then)?
bool Scheduler::Impl::queue_may_preempt(QueueId q) const {
  if (!opt.preemption) return false;
  const auto& qi = queue(q);
  for (QueueId v = 0; v < static_cast<QueueId>(snap->queues().size()); ++v) {
    const auto& vi = queue(v);
    if (!vi.present || vi.running_groups.empty()) continue;
    if (v == q ? opt.intra_queue_preemption : (vi.priority < qi.priority && vi.preemptible))
      return true;
  }
  return false;
}

// Fast skip (issue "cycle cost"): would attempting this group now, in this state, change
// nothing and place nothing? True only when that is certain:
//  * it holds no reservation this cycle (an attempt may release it);
//  * and quota blocks every pod it could try on GPUs alone (quota is checked before placement
//    and before preemption), or it fails placement and its queue has no possible victims.
// Placement fails for sure when its smallest pending GPU request exceeds every node's free
// GPUs: find_node returns at once for each of its pods (and for a gang core, a subset).
// Side effects an attempt would have had are harmless: failure memos only record failures
// that are certain (and a skipped gang's signature would be skipped again by this same test,
// since free GPUs only shrink during a cycle), and views are replayed by the caller.
// A skipped group is reported pending with what made it skippable: its queue's GPU quota (the
// lower bound as what it asks), or every node short of GPUs for its smallest pod.
bool Scheduler::Impl::skippable(const PendingEntry& e, QueueId q, std::int64_t max_free,
                                bool gang) {
  look_at(q, e);
  const GroupId g = group_of(e.key);
  if (!st.reservations().empty() && st.has_reservation(g)) return false;
  const std::int64_t limit = gpu_quota[static_cast<std::size_t>(q)];
  // The reason its attempt would give first (§8.3 permit before quota): a gang short of pods
  // (not running: its members are its pending pods, minMember is `need`).
  const auto short_of_pods = [&] {
    if (!gang || e.running || e.pending_pods >= e.need) return false;
    report_group(e, hash_of(PendingCause::GangMembers, e.pending_pods, e.need), [&] {
      PendingReason r;
      r.cause = PendingCause::GangMembers;
      r.pods = e.pending_pods;
      r.placed = e.need;
      return r;
    });
    return true;
  };
  if (limit != std::numeric_limits<std::int64_t>::max()) {
    // A lower bound of the GPUs whose quota would be checked: the whole core for a gang not
    // yet running (at least `need` pods, each >= min_gpu); one pod otherwise.
    const std::int64_t lb =
        gang && !e.running ? static_cast<std::int64_t>(e.need) * e.min_gpu : e.min_gpu;
    const std::int64_t used = at(st.queue_allocated(q), kDimGpu);
    if (used + lb > limit) {
      if (short_of_pods()) return true;
      auto& [hu, hl, hq] = quota_hash;
      if (hu != used || hl != limit)
        quota_hash = {used, limit, hash_of(PendingCause::Quota, used, limit)};
      report_group(e, mix(std::get<2>(quota_hash), static_cast<std::uint64_t>(lb)), [&] {
        PendingReason r;
        r.cause = PendingCause::Quota;
        r.quota_dim = kDimGpu;
        r.quota_used = used;
        r.quota_asked = lb;
        r.quota_limit = limit;
        return r;
      });
      return true;
    }
  }
  if (e.min_gpu > max_free && !may_preempt[static_cast<std::size_t>(q)]) {
    if (short_of_pods()) return true;
    report_group(e, capacity_skip_hash(e),
                 [&] { return capacity_skip_reason(capacity_hash.first, skip_pods(e)); });
    return true;
  }
  return false;
}

// The pods a capacity skip reports: the whole core of a gang not yet running, else one.
std::int32_t Scheduler::Impl::skip_pods(const PendingEntry& e) const {
  return !permits.empty() && !e.running ? e.need : 1;
}

PendingReason Scheduler::Impl::capacity_skip_reason(std::int32_t nodes, std::int32_t pods) {
  PendingReason r;
  r.cause = PendingCause::Capacity;
  r.nodes.nodes = nodes;
  r.nodes.gpu = nodes;
  r.pods = pods;
  return r;
}

// The capacity skip's reason hash (before report()'s `| 1`); capacity_hash is the stage's node
// count's, set at the start of t9k_stage.
std::uint64_t Scheduler::Impl::capacity_skip_hash(const PendingEntry& e) const {
  return mix(capacity_hash.second, static_cast<std::uint64_t>(skip_pods(e)));
}

// A skipped group's value in its queue's skip tree: its smallest GPU request while the reason
// it last reported is the one a skip for capacity would give now (so a walk whose free GPUs are
// below it may pass it: skippable() would report nothing), the lowest value otherwise (visit),
// the highest for a dead entry.
std::int64_t Scheduler::Impl::skip_value(const PendingEntry& e) const {
  if (e.dead || e.passable) return MinTree::kHighest;  // a lazy gang: the mask tree's
  const bool short_of_pods = !permits.empty() && !e.running && e.pending_pods < e.need;
  return !short_of_pods && e.reported == (capacity_skip_hash(e) | 1)
             ? e.min_gpu
             : std::numeric_limits<std::int64_t>::min();
}

MinTree& Scheduler::Impl::skip_tree(QueueId q) {
  auto& s = skip[static_cast<std::size_t>(q)];
  const auto& info = queue(q);
  const auto& index = info.pending_index;
  const bool lazy_on = lazy_allowed();
  MaskTree* masks = lazy_on ? &lazy[static_cast<std::size_t>(q)].tree : nullptr;
  if (!s.valid || info.relaid || s.nodes != capacity_hash.first ||
      index.size() > s.tree.capacity()) {
    // Room to append before the next build: the power of two at or above, at least 64 more (not
    // twice the entries: the trees' 16 bytes an entry held a megabyte of the backlog's peak).
    const std::size_t room = index.size() + 64;
    s.tree.reset(room);
    if (masks) masks->reset(room);
    for (std::size_t i = 0; i < index.size(); ++i) {
      if (masks) masks->load(i, refresh_lazy(q, i));
      s.tree.load(i, skip_value(index[i]));
    }
    s.tree.rebuild();
    if (masks) masks->rebuild();
    s.valid = true;
    s.nodes = capacity_hash.first;
    info.relaid = false;
  } else {
    for (const std::uint32_t pos : info.touched) {
      if (pos >= index.size()) continue;
      if (masks) masks->set(pos, refresh_lazy(q, pos));
      s.tree.set(pos, skip_value(index[pos]));
    }
  }
  info.touched.clear();
  return s.tree;
}

void Scheduler::Impl::t9k_stage() {
  const std::size_t nq = snap->queues().size();
  cursor.assign(nq, 0);
  may_preempt.assign(nq, 0);
  gpu_quota.assign(nq, std::numeric_limits<std::int64_t>::max());
  auto after = [this](QueueId a, QueueId b) { return compare_queues(a, b) > 0; };
  heap.clear();
  for (const auto& [neg_prio, q] : snap->queues_by_priority()) {
    const auto& info = queue(q);
    if (!info.has_pending()) continue;
    may_preempt[static_cast<std::size_t>(q)] = queue_may_preempt(q);
    if (info.has_quota &&
        std::find(info.quota_dims.begin(), info.quota_dims.end(), kDimGpu) != info.quota_dims.end())
      gpu_quota[static_cast<std::size_t>(q)] = at(info.quota, kDimGpu);
    heap.push_back(q);
    std::push_heap(heap.begin(), heap.end(), after);
  }
  const bool strict = opt.backfill == BackfillPolicy::StrictFifo;
  const bool gang = !permits.empty();
  const auto nodes = static_cast<std::int32_t>(snap->nodes_by_free_gpu().size());
  if (capacity_hash.first != nodes) capacity_hash = {nodes, hash_of(PendingCause::Capacity, nodes)};
  if (skip.size() < nq) skip.resize(nq);
  const bool lazy_on = lazy_allowed();
  if (lazy_on && lazy.size() < nq) lazy.resize(nq);
  if (lazy_on) catch_up_departed(out.caught_up);
  QueueId alone = kNone;  // a queue with groups left that the heap, empty, would give back at once
  while (alone != kNone || !heap.empty()) {
    QueueId q = alone;
    alone = kNone;
    if (q == kNone) {
      std::pop_heap(heap.begin(), heap.end(), after);
      q = heap.back();
      heap.pop_back();
    }
    const auto& index = queue(q).pending_index;
    auto& it = cursor[static_cast<std::size_t>(q)];
    if (lazy_on) rotate_lazy(q);
    // Skipped attempts change nothing and, with skip-and-continue, their outcome does not
    // matter; a failed attempt leaves the queue ranks unchanged, so the same queue would be
    // popped again: walking its run of skippable groups here is the same sequence. (With
    // strict-fifo the first blocked group ends the queue: nothing to skip.)
    // A plain queue (no reservation in the cycle, no GPU quota, no possible victims) skips a
    // group only for capacity, with a reason fixed by the group and the node count: its walk
    // jumps, by the queue's skip tree, over the groups whose reason stands (issue 49).
    const bool plain =
        !strict && st.reservations().empty() && !may_preempt[static_cast<std::size_t>(q)] &&
        gpu_quota[static_cast<std::size_t>(q)] == std::numeric_limits<std::int64_t>::max();
    if (!plain) skip[static_cast<std::size_t>(q)].valid = false;  // reasons change unseen
    if (!strict) {
      const auto top = st.max_free_gpu();
      const std::int64_t max_free = top ? *top : -1;
      std::size_t first = index.size(), last = 0;  // the live entries skipped
      if (plain) {
        MinTree& tree = skip_tree(q);
        for (;;) {
          std::size_t next = tree.first_at_most(it, max_free);
          if (lazy_on) next = std::min(next, lazy_next(q, it, max_free));
          it = std::min(next, index.size());
          if (it == index.size() || !skippable(index[it], q, max_free, gang)) break;
          tree.set(it, skip_value(index[it]));
          first = std::min(first, it);
          last = it++;
        }
      } else {
        for (; it < index.size(); ++it) {
          if (index[it].dead) continue;
          if (!skippable(index[it], q, max_free, gang)) break;
          first = std::min(first, it);
          last = it;
        }
      }
      if (first <= last && !st.reservations().empty()) {
        // Replay the views the skipped attempts would have set: within one queue they only
        // grow with the rank (no skipped group holds a reservation), so the first and the last
        // give the same view epochs as all of them (failure memos are keyed by epoch).
        const std::int32_t qp = queue(q).priority;
        st.set_viewer(Viewer{false, group_of(index[first].key), q, qp, index[first].key});
        st.set_viewer(Viewer{false, group_of(index[last].key), q, qp, index[last].key});
      }
    } else {
      while (it < index.size() && index[it].dead) ++it;
    }
    if (it == index.size()) continue;
    const PendingEntry& entry = index[it];
    const GroupId g = group_of(entry.key);
    const std::size_t at_entry = it++;
    const Outcome o = attempt_group(q, entry);
    if (plain) skip[static_cast<std::size_t>(q)].tree.set(at_entry, skip_value(entry));
    if (o == Outcome::Blocked && strict) {  // §11 Q11 option: the queue waits
      for (std::size_t rest = it; rest < index.size(); ++rest) {
        if (index[rest].dead) continue;
        report_group(index[rest], hash_of(PendingCause::QueueOrder, g, entry.key.sequence), [&] {
          PendingReason r;
          r.cause = PendingCause::QueueOrder;
          r.ahead = g;
          return r;
        });
      }
      continue;
    }
    if (it < index.size()) {
      if (heap.empty()) {
        alone = q;  // a deep queue's walk goes on without a push and a pop per attempt
        continue;
      }
      heap.push_back(q);
      std::push_heap(heap.begin(), heap.end(), after);
    }
  }
  if (lazy_on) close_lazy_tables();
}

void Scheduler::Impl::mark_evicted(PodId p, char how) {
  auto& e = evicted[static_cast<std::size_t>(p)];
  if (!e) evicted_list.push_back(p);
  e = how;
}

void Scheduler::Impl::collect_pending(const GroupInfo& g) {
  pending.clear();
  for (const PodId p : g.pods)
    if (pod(p).state == PodState::Pending && !evicted[static_cast<std::size_t>(p)])
      pending.push_back(p);
}

// §8.4: the minMember core, honouring each role's minimum first; the rest is surplus.
void Scheduler::Impl::split_core(const GroupInfo& g) {
  core.clear();
  surplus.clear();
  const std::int32_t need = std::max<std::int32_t>(0, g.min_member - g.n_bound - g.n_succeeded);
  auto& taken = taken_buf;
  taken.assign(pending.size(), 0);
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

bool Scheduler::Impl::place_individually(QueueId q, PodId id) {
  const auto& p = pod(id);
  if (!quota_ok(q, p.request)) {
    why_quota(q, p.request);
    return false;
  }
  one_buf.assign(1, id);
  if (!trial(one_buf, &queue(q), placed_one)) return false;
  commit(placed_one);
  return true;
}

// §8.6 nomination: the group sees only reservations of groups it does not outrank as used.
// Its own reservation survives the attempt only if it still waits for it (it preempted, or
// the resources coming back suffice); placed, or unable to use it now, it is released for the
// rest of the cycle (the snapshot drops it once the group is bound).
Outcome Scheduler::Impl::attempt_group(QueueId q, const PendingEntry& entry) {
  look_at(q, entry);
  const GroupId gid = group_of(entry.key);
  const GroupInfo& g = group(gid);
  st.set_viewer(Viewer{false, gid, q, queue(q).priority, g.order_key(gid)});
  keep_reservation = false;
  gang_members_why = false;
  why_hash = 0;
  const Outcome o = attempt_group_views(q, gid, entry.core_shape);
  if (gang_members_why) report_group(entry, why);
  if (o == Outcome::Blocked) {
    // A group that preempts (or waits for its victims) says so, unless its quota blocked it.
    if (keep_reservation && why.cause != PendingCause::Quota) {
      why.cause = PendingCause::Preempting;
      why_hash = 0;
    }
    report_group(entry, why_hash != 0 ? why_hash : reason_hash(why), [&] { return why; });
  }
  if (!keep_reservation && st.has_reservation(gid)) st.release_reservations(gid);
  return o;
}

std::optional<Outcome> Scheduler::Impl::known_uniform_failure(QueueId q, const GroupInfo& g,
                                                              ShapeId shape) {
  // The plain case (PendingEntry::core_shape): with no pod evicted this cycle the attempt's
  // pending pods are the snapshot's, the gang permit passes, and the core is minMember pods of
  // `shape`; without preemption a failure does nothing more.
  if (shape == kNone || !evicted_list.empty() || opt.preemption || !gang_permit_only ||
      st.bonus_active())
    return std::nullopt;
  const auto size = static_cast<std::size_t>(g.min_member);
  const QueueInfo& qi = queue(q);
  if (qi.has_quota) {  // quota_ok without one is true: no core's request to build
    const SparseRes& one = snap->shape_request(shape);
    SparseRes total;
    for (const auto& [d, v] : one)
      if (v != 0) total.emplace_back(d, v * g.min_member);
    if (!quota_ok(q, total)) {
      why_quota(q, total);
      return Outcome::Blocked;
    }
  }
  const std::tuple<std::int32_t, SelectorId, ShapeId, std::size_t> key{st.view_epoch(), qi.selector,
                                                                       shape, size};
  if (const auto memo = uniform_gang_memo.find(key); memo != uniform_gang_memo.end()) {
    why = memo->second.why;
    why_hash = memo->second.hash;
    return Outcome::Blocked;
  }
  // What trial_core would answer without a trial; anything else needs the pods.
  const auto it = uniform_fail_memo.find({st.view_epoch(), qi.selector, shape});
  if (it == uniform_fail_memo.end() || it->second.changes != st.changes() ||
      size <= it->second.placed)
    return std::nullopt;
  const auto any = std::find_if(g.pods.begin(), g.pods.end(),
                                [&](PodId p) { return pod(p).state == PodState::Pending; });
  if (memo_fails(pod(*any), &qi)) return std::nullopt;
  trial_size = size;
  gang_nodes.clear();
  why_nodes(it->second.tally, size, it->second.placed);
  why_hash = reason_hash(why);
  uniform_gang_memo.emplace(key, KnownFailure{why, why_hash});
  return Outcome::Blocked;
}

Outcome Scheduler::Impl::attempt_group_views(QueueId q, GroupId gid, ShapeId shape) {
  const GroupInfo& g = group(gid);
  const QueueInfo& qi = queue(q);
  if (!g.present || !qi.present) return Outcome::Skipped;  // waits for its PodGroup / queue
  if (const auto known = known_uniform_failure(q, g, shape)) return *known;
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
    PendingReason first_why;  // of the first required pod that found no place
    auto& todo = todo_buf;
    todo = pending;
    for (std::size_t i = 0; i < todo.size(); ++i) {
      if (place_individually(q, todo[i])) continue;
      const bool required = static_cast<std::int32_t>(i) < need;
      if (required && !blocked) first_why = why;
      blocked = blocked || required;
      // Replacements that restore a running gang may preempt; elastic surplus never does.
      if (required && opt.preemption && quota_ok(q, pod(todo[i]).request))
        try_preempt(q, gid, {todo[i]});
    }
    why = first_why;
    return blocked ? Outcome::Blocked : Outcome::Placed;
  }
  for (const auto& pm : permits)
    if (!pm->ready(*snap, g, pending)) {  // §8.3: too few members yet
      why = PendingReason{};
      why.cause = PendingCause::GangMembers;
      why.pods = static_cast<std::int32_t>(pending.size()) + g.n_bound + g.n_succeeded;
      why.placed = g.min_member;
      gang_members_why = true;
      return Outcome::Skipped;
    }
  split_core(g);
  SparseRes total;
  {
    DenseRes sum;
    for (const PodId p : core) add(sum, pod(p).request);
    for (std::size_t d = 0; d < sum.size(); ++d)
      if (sum[d] != 0) total.emplace_back(static_cast<Dim>(d), sum[d]);
  }
  // §8.6: quota is checked before, and independently of, preemption (C2 of the example).
  if (!quota_ok(q, total)) {
    why_quota(q, total);
    return Outcome::Blocked;
  }
  const ShapeId first_shape = core.empty() ? kNone : pod(core.front()).shape;
  const bool uniform = !core.empty() && std::all_of(core.begin(), core.end(), [&](PodId p) {
    return pod(p).shape == first_shape;
  });
  const std::tuple<std::int32_t, SelectorId, ShapeId, std::size_t> uniform_key{
      st.view_epoch(), qi.selector, first_shape, core.size()};
  if (!uniform) {
    signature.assign({st.view_epoch(), qi.selector});
    for (const PodId p : core) signature.push_back(pod(p).shape);
    std::sort(signature.begin() + 2, signature.end());
  }
  auto& placed = placed_core;
  bool ok = false;
  const PendingReason* failed = nullptr;
  if (uniform) {
    if (const auto m = uniform_gang_memo.find(uniform_key); m != uniform_gang_memo.end())
      failed = &m->second.why;
  } else if (const auto m = gang_fail_memo.find(signature); m != gang_fail_memo.end()) {
    failed = &m->second;
  }
  if (!failed) {
    ok = trial_core(qi, placed);
    for (const auto& pm : permits) ok = ok && pm->permit(core.size(), placed.size());
    if (!ok) {
      rollback(placed);
      if (uniform)
        uniform_gang_memo.emplace(uniform_key, KnownFailure{why, reason_hash(why)});
      else
        gang_fail_memo.emplace(signature, why);
    }
  } else {
    why = *failed;
  }
  if (!ok) {
    if (opt.preemption) try_preempt(q, gid, core);
    return Outcome::Blocked;
  }
  commit(placed);
  // §8.4 [INFERRED]: the elastic surplus goes one by one, best effort, after the gang.
  extra_pods_buf = surplus;
  for (const PodId p : extra_pods_buf) place_individually(q, p);
  return Outcome::Placed;
}

void Scheduler::Impl::default_stage() {
  // Default-scheduler pods are outranked by every T9k reservation (§8.6 nomination): what a
  // preemptor evicted for must not go to a pod it cannot preempt back.
  st.set_viewer(Viewer{});
  for (const auto& key : snap->default_pending()) {
    const PodId id = pod_of(key);
    if (evicted[static_cast<std::size_t>(id)]) continue;
    const auto& p = pod(id);
    if (const NodeTally* t = memo_fails(p, nullptr)) {
      why_nodes(*t, 1, 0);
      report_pod(id, std::get<2>(key), why);
      continue;
    }
    gang_nodes.clear();
    const auto n = find_node(p, nullptr);
    if (!n) {
      memo_record(p, nullptr);
      why_nodes(tally, 1, 0);
      report_pod(id, std::get<2>(key), why);
      continue;
    }
    st.take_pod(*n, id, p);
    out.bindings.push_back(
        Binding{p.key.str(), node(*n).name, p.gpu_share > 0 ? st.slot_of(id) : kNone, id, *n});
  }
}

Decisions Scheduler::Impl::run(const ClusterSnapshot& s, model::SimTime now) {
  snap = &s;
  ++run_no;
  if (skip_snapshot != &s) {  // the skip trees follow one snapshot's changes
    for (auto& k : skip) k.valid = false;
    lazy.clear();
    skip_snapshot = &s;
  }
  st.reset(s);
  out = Decisions{};
  if (seen.size() < s.nodes().size()) seen.resize(s.nodes().size(), 0);  // stamps go on
  for (const PodId p : evicted_list) evicted[static_cast<std::size_t>(p)] = 0;
  evicted_list.clear();
  if (evicted.size() < s.pods().size()) evicted.resize(s.pods().size(), 0);
  for (const GroupId g : nominated_now_list) nominated_now[static_cast<std::size_t>(g)] = 0;
  nominated_now_list.clear();
  if (nominated_now.size() < s.groups().size()) nominated_now.resize(s.groups().size(), 0);
  fail_memo.clear();
  gang_fail_memo.clear();
  uniform_gang_memo.clear();
  uniform_fail_memo.clear();
  preempt_fail_memo.clear();
  for (const QueueId v : victims_from_list) victims_from_set[static_cast<std::size_t>(v)] = 0;
  victims_from_list.clear();
  if (victims_from.size() < s.queues().size()) {
    victims_from.resize(s.queues().size());
    victims_from_set.resize(s.queues().size(), 0);
  }
  preemptions.clear();
  max_duration_stage(now);
  t9k_stage();
  default_stage();
  attach_plans();
  snap = nullptr;
  return std::move(out);
}

}  // namespace t9k::scheduler
