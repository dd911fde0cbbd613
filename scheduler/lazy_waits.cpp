// Lazy waiting gangs (issue 49, docs/scheduler.md "Deep queues"). In a deep queue with free GPUs
// every waiting gang is attempted again at each capacity change, and its reason ("k of n pods
// fit") changes with the free GPUs, so a cycle cost O(waiting gangs). Yet of a wait the world
// has published (SchedulingDriver) and since kept a later reason of the same cause, it only ever
// uses the last reason, when the gang is placed or the run ends. Such a gang is marked lazy
// (ClusterSnapshot::set_lazy); in a plain queue (skip-and-continue, no reservation, no GPU quota,
// nothing to preempt) the walk passes the lazy gangs of one shape by a mask tree of their sizes:
//   * for capacity, once the free GPUs are below the shape's (skippable() would report that);
//   * by the uniform gang memo, when its failure for the gang's size is known in this cycle
//     (known_uniform_failure() would answer with it, with nothing else done).
// A gang of a size not yet failed in the cycle is looked at, as are all gangs anywhere else. A
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

std::uint64_t Scheduler::Impl::size_bit(const LazyClass& lc, std::int32_t size) const {
  const auto it = std::find(lc.sizes.begin(), lc.sizes.end(), size);
  return it == lc.sizes.end() ? 0 : std::uint64_t{1} << (it - lc.sizes.begin());
}

bool Scheduler::Impl::passable_now(QueueId q, const PendingEntry& e) {
  // A gang known_uniform_failure() answers from its memo: one shape, all of its core there.
  if (!e.lazy || e.dead || e.core_shape == kNone || e.running || e.need <= 0 ||
      e.pending_pods < e.need || !group(group_of(e.key)).present)
    return false;
  LazyClass& lc = lazy[static_cast<std::size_t>(q)];
  if (lc.shape == kNone) {
    lc.shape = e.core_shape;
    lc.gpu = e.min_gpu;
  }
  if (e.core_shape != lc.shape || e.min_gpu != lc.gpu) return false;
  if (size_bit(lc, e.need) == 0) {
    if (lc.sizes.size() >= 64) return false;  // a bit per size
    lc.sizes.push_back(e.need);
  }
  return true;
}

void Scheduler::Impl::rotate_lazy(QueueId q) {
  LazyClass& lc = lazy[static_cast<std::size_t>(q)];
  if (lc.cur.run == run_no) return;
  if (lc.cur.run != 0) lc.prev = std::move(lc.cur);
  lc.cur = LazyTable{};
  lc.cur.run = run_no;
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
  if (t.skip_zone && !(e.key < t.skip_from)) {
    // As skippable() reports it, with the hash it reports it by (capacity_skip_hash).
    PendingReason r;
    r.cause = PendingCause::Capacity;
    r.nodes.nodes = t.nodes;
    r.nodes.gpu = t.nodes;
    r.pods = e.passed_size;
    return std::pair{r, mix(hash_of(PendingCause::Capacity, t.nodes),
                            static_cast<std::uint64_t>(e.passed_size))};
  }
  const LazyClass& lc = lazy[static_cast<std::size_t>(q)];
  const auto rank = static_cast<std::size_t>(
      std::find(lc.sizes.begin(), lc.sizes.end(), e.passed_size) - lc.sizes.begin());
  if (rank >= t.memo.size() || !t.memo[rank]) return std::nullopt;
  return std::pair{t.memo[rank]->why, t.memo[rank]->hash};
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
  why.sequence = std::get<2>(e.key);
  why.continued = true;
  to.push_back(why);
}

void Scheduler::Impl::look_at(QueueId q, const PendingEntry& e) {
  if (e.reported_run == run_no || !lazy_allowed()) return;
  const LazyClass& lc = lazy[static_cast<std::size_t>(q)];
  if (passed_in(lc.prev, e)) catch_up(lc.prev, q, e, out.caught_up);
  e.reported_run = run_no;
}

std::uint64_t Scheduler::Impl::refresh_lazy(QueueId q, std::size_t pos) {
  const PendingEntry& e = queue(q).pending_index[pos];
  LazyClass& lc = lazy[static_cast<std::size_t>(q)];
  const bool now = passable_now(q, e);
  if (now != e.passable || (now && e.need != e.passed_size)) {
    // Passed last time with what it was then: caught up before that changes.
    if (passed_in(lc.prev, e)) catch_up(lc.prev, q, e, out.caught_up);
    if (now != e.passable) {
      e.passable = now;
      e.passable_since = run_no;
    }
    e.passed_size = e.need;
  }
  return now ? size_bit(lc, e.need) : 0;
}

std::size_t Scheduler::Impl::lazy_next(QueueId q, std::size_t from, std::int64_t max_free) {
  LazyClass& lc = lazy[static_cast<std::size_t>(q)];
  if (lc.shape == kNone) return MaskTree::kNone;
  lc.cur.passing = true;
  const auto& index = queue(q).pending_index;
  if (lc.gpu > max_free) {
    // skippable() from here on (the free GPUs only shrink in a cycle): the capacity reason.
    if (!lc.cur.skip_zone && from < index.size()) {
      lc.cur.skip_zone = true;
      lc.cur.skip_from = index[from].key;
      lc.cur.nodes = capacity_hash.first;
    }
    return MaskTree::kNone;
  }
  // known_uniform_failure()'s first answer, for the sizes whose failure it holds.
  std::uint64_t ask = ~std::uint64_t{0};
  const std::int32_t epoch = st.view_epoch();
  if (!lc.cur.skip_zone && evicted_list.empty() && !st.bonus_active() && !queue(q).has_quota &&
      (lc.cur.epoch < 0 || lc.cur.epoch == epoch)) {
    if (lc.memo_run != run_no || lc.memo_epoch != epoch) {
      lc.memo_run = run_no;
      lc.memo_epoch = epoch;
      lc.memo_ok = 0;
      lc.memo_seen = std::numeric_limits<std::size_t>::max();
    }
    if (lc.memo_seen != uniform_gang_memo.size()) {  // the memo only grows in a cycle
      lc.memo_seen = uniform_gang_memo.size();
      const SelectorId sel = queue(q).selector;
      for (std::size_t r = 0; r < lc.sizes.size(); ++r) {
        const std::uint64_t bit = std::uint64_t{1} << r;
        if (lc.memo_ok & bit) continue;
        const auto m =
            uniform_gang_memo.find({epoch, sel, lc.shape, static_cast<std::size_t>(lc.sizes[r])});
        if (m != uniform_gang_memo.end() && m->second.why.cause == PendingCause::Capacity)
          lc.memo_ok |= bit;
      }
    }
    ask = ~lc.memo_ok;
  }
  const std::size_t next = lc.tree.first_any(from, ask);
  if (ask != ~std::uint64_t{0} && next != from) lc.cur.epoch = epoch;
  return next;
}

void Scheduler::Impl::close_lazy_tables() {
  for (std::size_t q = 0; q < lazy.size(); ++q) {
    LazyClass& lc = lazy[q];
    if (lc.cur.run != run_no || lc.cur.epoch < 0) continue;
    lc.cur.memo.assign(lc.sizes.size(), std::nullopt);
    const SelectorId sel = queue(static_cast<QueueId>(q)).selector;
    for (std::size_t r = 0; r < lc.sizes.size(); ++r) {
      const auto m = uniform_gang_memo.find(
          {lc.cur.epoch, sel, lc.shape, static_cast<std::size_t>(lc.sizes[r])});
      if (m != uniform_gang_memo.end()) lc.cur.memo[r] = m->second;
    }
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
