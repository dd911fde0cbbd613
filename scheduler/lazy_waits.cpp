// Lazy waiting gangs (issue 49, docs/scheduler.md "Deep queues"). In a deep queue with free GPUs
// every waiting gang is attempted again at each capacity change, and its reason ("k of n pods
// fit") changes with the free GPUs, so a cycle cost O(waiting gangs). Yet of a wait the world
// has published (SchedulingDriver) and since kept a later reason of the same cause, it only ever
// uses the last reason, when the gang is placed or the run ends. Such a gang is marked lazy
// (ClusterSnapshot::set_lazy); in a plain queue (skip-and-continue, no reservation, no GPU quota,
// nothing to preempt) the walk passes lazy gangs by a mask tree of their kinds (a shape and a
// gang size; up to 64 a queue):
//   * for capacity, once the free GPUs are below the shape's (skippable() would report that);
//   * by the uniform gang memo, when its failure for the gang's shape and size is known in this
//     cycle (known_uniform_failure() would answer with it, with nothing else done).
// A gang of a kind not yet failed in the cycle is looked at, as are all gangs anywhere else. A
// cycle's table records how it passed them; when the walk next looks at a passed gang (or at the
// end of the run) the reason it had is given as Decisions::caught_up, and its report hash is set
// to it, so that what follows is reported exactly as without laziness. Reasons of other causes
// never come from a pass: a gang whose reason would change cause is looked at.
#include <algorithm>
#include <limits>

#include "scheduler/detail/cycle.hpp"

namespace t9k::scheduler {

using namespace detail;

bool Scheduler::Impl::lazy_allowed() const {
  return !opt.preemption && gang_permit_only && opt.backfill != BackfillPolicy::StrictFifo;
}

std::int32_t Scheduler::Impl::lazy_kind(QueueId q, const PendingEntry& e) {
  // A gang known_uniform_failure() answers from its memo: one shape, all of its core there.
  if (!e.lazy || e.dead || e.core_shape == kNone || e.running || e.need <= 0 ||
      e.pending_pods < e.need || !group(group_of(e.key)).present)
    return -1;
  LazyQueue& lq = lazy[static_cast<std::size_t>(q)];
  const auto shape = std::find_if(lq.shapes.begin(), lq.shapes.end(),
                                  [&](const LazyShape& s) { return s.shape == e.core_shape; });
  const auto sx = static_cast<std::int32_t>(shape - lq.shapes.begin());
  if (shape != lq.shapes.end() && shape->gpu != e.min_gpu) return -1;
  const auto kind = std::find_if(lq.kinds.begin(), lq.kinds.end(), [&](const LazyKind& k) {
    return k.shape == sx && k.size == e.need;
  });
  if (kind != lq.kinds.end()) return static_cast<std::int32_t>(kind - lq.kinds.begin());
  if (lq.kinds.size() >= kLazyKinds) return -1;
  if (shape == lq.shapes.end()) lq.shapes.push_back(LazyShape{e.core_shape, e.min_gpu, 0});
  lq.shapes[static_cast<std::size_t>(sx)].bits |= std::uint64_t{1} << lq.kinds.size();
  lq.kinds.push_back(LazyKind{sx, e.need});
  return static_cast<std::int32_t>(lq.kinds.size() - 1);
}

const Scheduler::Impl::KnownFailure* Scheduler::Impl::kind_failure(const LazyQueue& lq,
                                                                   std::size_t k, SelectorId sel,
                                                                   std::int32_t epoch) const {
  const LazyKind& kind = lq.kinds[k];
  const auto m =
      uniform_gang_memo.find({epoch, sel, lq.shapes[static_cast<std::size_t>(kind.shape)].shape,
                              static_cast<std::size_t>(kind.size)});
  return m != uniform_gang_memo.end() ? &m->second : nullptr;
}

void Scheduler::Impl::rotate_lazy(QueueId q) {
  LazyQueue& lq = lazy[static_cast<std::size_t>(q)];
  if (lq.cur.run == run_no) return;
  if (lq.cur.run != 0) lq.prev = std::move(lq.cur);
  lq.cur = LazyTable{};
  lq.cur.run = run_no;
}

// Whether the walk of table t passed the gang (its passability then, and nothing looked at it
// or caught it up since).
bool Scheduler::Impl::passed_in(const LazyTable& t, const PendingEntry& e) const {
  if (t.run == 0 || !t.passing) return false;
  const bool was = e.passable_since <= t.run ? e.passable : !e.passable;
  return was && e.reported_run < t.run;
}

std::optional<std::pair<PendingReason, std::uint64_t>> Scheduler::Impl::passed_reason(
    const LazyTable& t, QueueId q, const PendingEntry& e) const {
  const LazyQueue& lq = lazy[static_cast<std::size_t>(q)];
  if (e.passed_kind < 0 || static_cast<std::size_t>(e.passed_kind) >= lq.kinds.size())
    return std::nullopt;
  const auto kind = static_cast<std::size_t>(e.passed_kind);
  const LazyKind& k = lq.kinds[kind];
  const auto shape = static_cast<std::size_t>(k.shape);
  if (shape < t.zone_from.size() && t.zone_from[shape] && !(e.key < *t.zone_from[shape])) {
    // As skippable() reports it, with the hash it reports it by (capacity_skip_hash).
    return std::pair{
        capacity_skip_reason(t.nodes, k.size),
        mix(hash_of(PendingCause::Capacity, t.nodes), static_cast<std::uint64_t>(k.size))};
  }
  if (kind >= t.memo.size() || !t.memo[kind]) return std::nullopt;
  return std::pair{t.memo[kind]->why, t.memo[kind]->hash};
}

void Scheduler::Impl::catch_up(const LazyTable& t, QueueId q, const PendingEntry& e,
                               std::vector<PendingReason>& to) {
  const auto r = passed_reason(t, q, e);
  e.reported_run = t.run;
  if (!r) return;
  const std::uint64_t h = r->second | 1;  // as report() keeps it
  if (e.reported == h) return;
  e.reported = h;
  PendingReason why = r->first;
  why.group = group_of(e.key);
  why.sequence = e.key.sequence;
  why.continued = true;
  to.push_back(why);
}

void Scheduler::Impl::look_at(QueueId q, const PendingEntry& e) {
  if (e.reported_run == run_no || !lazy_allowed()) return;
  const LazyQueue& lq = lazy[static_cast<std::size_t>(q)];
  if (passed_in(lq.prev, e)) catch_up(lq.prev, q, e, out.caught_up);
  e.reported_run = run_no;
}

std::uint64_t Scheduler::Impl::refresh_lazy(QueueId q, std::size_t pos) {
  const PendingEntry& e = queue(q).pending_index[pos];
  const LazyQueue& lq = lazy[static_cast<std::size_t>(q)];
  const std::int32_t kind = lazy_kind(q, e);
  const bool now = kind >= 0;
  if (now != e.passable || (now && kind != e.passed_kind)) {
    // Passed last time as what it was then: caught up before that changes.
    if (passed_in(lq.prev, e)) catch_up(lq.prev, q, e, out.caught_up);
    if (now != e.passable) {
      e.passable = now;
      e.passable_since = run_no;
    }
    e.passed_kind = kind;
  }
  return now ? std::uint64_t{1} << kind : 0;
}

std::size_t Scheduler::Impl::lazy_next(QueueId q, std::size_t from, std::int64_t max_free) {
  LazyQueue& lq = lazy[static_cast<std::size_t>(q)];
  if (lq.kinds.empty()) return MaskTree::kNone;
  lq.cur.passing = true;
  if (max_free > lq.cur.max_free) lq.cur.rose = true;
  lq.cur.max_free = std::min(lq.cur.max_free, max_free);
  if (lq.cur.rose) return lq.tree.first_any(from, ~std::uint64_t{0});  // each looked at
  const auto& index = queue(q).pending_index;
  // The shapes skippable() passes from here on (the free GPUs only shrink in a cycle): their
  // gangs are passed with the capacity reason.
  std::uint64_t zone = 0;
  for (std::size_t s = 0; s < lq.shapes.size(); ++s) {
    if (lq.shapes[s].gpu <= max_free) continue;
    zone |= lq.shapes[s].bits;
    if (lq.cur.zone_from.size() <= s) lq.cur.zone_from.resize(lq.shapes.size());
    if (!lq.cur.zone_from[s] && from < index.size()) {
      lq.cur.zone_from[s] = index[from].key;
      lq.cur.nodes = capacity_hash.first;
    }
  }
  const std::uint64_t all =
      lq.kinds.size() == kLazyKinds ? ~std::uint64_t{0} : (std::uint64_t{1} << lq.kinds.size()) - 1;
  if ((zone & all) == all) return MaskTree::kNone;  // every lazy gang from here on is passed
  std::uint64_t ask = ~zone;
  // known_uniform_failure()'s first answer, for the kinds whose failure it holds.
  bool by_memo = false;
  const std::int32_t epoch = st.view_epoch();
  if (evicted_list.empty() && !st.bonus_active() && !queue(q).has_quota &&
      (lq.cur.epoch < 0 || lq.cur.epoch == epoch)) {
    if (lq.memo_run != run_no || lq.memo_epoch != epoch) {
      lq.memo_run = run_no;
      lq.memo_epoch = epoch;
      lq.memo_ok = 0;
      lq.memo_seen = std::numeric_limits<std::size_t>::max();
    }
    if (lq.memo_seen != uniform_gang_memo.size()) {  // the memo only grows in a cycle
      lq.memo_seen = uniform_gang_memo.size();
      const SelectorId sel = queue(q).selector;
      for (std::size_t k = 0; k < lq.kinds.size(); ++k) {
        const std::uint64_t bit = std::uint64_t{1} << k;
        if ((lq.memo_ok | zone) & bit) continue;  // known, or passed anyway till the cycle ends
        const KnownFailure* f = kind_failure(lq, k, sel, epoch);
        if (f && f->why.cause == PendingCause::Capacity) lq.memo_ok |= bit;
      }
    }
    by_memo = (lq.memo_ok & ~zone) != 0;
    ask &= ~lq.memo_ok;
  }
  const std::size_t next = lq.tree.first_any(from, ask);
  // Passes by the memo hold for this epoch's failures (possibly passes by zone only: the
  // table's epoch then only narrows later passes by the memo, never a reason).
  if (by_memo && next != from) lq.cur.epoch = epoch;
  return next;
}

void Scheduler::Impl::close_lazy_tables() {
  for (std::size_t q = 0; q < lazy.size(); ++q) {
    LazyQueue& lq = lazy[q];
    if (lq.cur.run != run_no || lq.cur.epoch < 0) continue;
    lq.cur.memo.assign(lq.kinds.size(), std::nullopt);
    const SelectorId sel = queue(static_cast<QueueId>(q)).selector;
    for (std::size_t k = 0; k < lq.kinds.size(); ++k)
      if (const KnownFailure* f = kind_failure(lq, k, sel, lq.cur.epoch)) lq.cur.memo[k] = *f;
  }
}

// Before the cycle's walks (and at the end of the run): an entry erased or reset after the walk
// that last passed it is looked at no more, so its reason then is given now, against that walk's
// table (the queue's latest: nothing has walked it since).
void Scheduler::Impl::catch_up_departed(std::vector<PendingReason>& to) {
  for (std::size_t q = 0; q < snap->queues().size(); ++q) {
    auto& departed = snap->queues()[q].departed;
    if (departed.empty()) continue;
    if (q < lazy.size())
      for (const PendingEntry& e : departed)
        if (passed_in(lazy[q].cur, e)) catch_up(lazy[q].cur, static_cast<QueueId>(q), e, to);
    departed.clear();
  }
}

std::vector<PendingReason> Scheduler::Impl::lazy_reasons(const ClusterSnapshot& s) {
  std::vector<PendingReason> reasons;
  snap = &s;
  catch_up_departed(reasons);
  for (std::size_t q = 0; q < lazy.size() && q < s.queues().size(); ++q) {
    const LazyTable& t = lazy[q].cur;
    if (t.run == 0) continue;
    for (const PendingEntry& e : s.queues()[q].pending_index)
      if (!e.dead && passed_in(t, e)) catch_up(t, static_cast<QueueId>(q), e, reasons);
  }
  snap = nullptr;
  return reasons;
}

}  // namespace t9k::scheduler
