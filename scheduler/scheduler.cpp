#include "scheduler/scheduler.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "scheduler/plugins.hpp"

namespace t9k::scheduler {

std::string_view to_string(RejectReason r) {
  switch (r) {
    case RejectReason::QueueNotFound:
      return "QueueNotFound";
    case RejectReason::QueueClosed:
      return "QueueClosed";
    case RejectReason::QuotaExceeded:
      return "QuotaExceeded";
  }
  return "?";
}

namespace {

std::string nodes_message(const NodeTally& t, const ClusterSnapshot& snap,
                          const std::string& queue) {
  std::string m = "0/" + std::to_string(t.nodes) + " nodes are available";
  std::string sep = ": ";
  auto part = [&](std::int32_t n, const std::string& what) {
    if (n <= 0) return;
    m += sep + std::to_string(n) + " " + what;
    sep = ", ";
  };
  part(t.gpu, "insufficient " + snap.resources().name(kDimGpu));
  part(t.cpu, "insufficient cpu");
  part(t.memory, "insufficient memory");
  // Named as kube-scheduler names them ("Insufficient amd.com/gpu"), not lumped together.
  part(t.extended,
       "insufficient " + (t.extended_dim != kNone ? snap.resources().name(t.extended_dim)
                                                  : std::string("extended resources")));
  part(t.other, "turned away by other filters");
  part(t.not_ready, "not ready or cordoned");
  part(t.selector, "not matching the pod's node selector");
  part(t.queue_selector, "not matching the node selector of queue " + queue);
  return m;
}

}  // namespace

std::string describe(const PendingReason& r, const ClusterSnapshot& snap) {
  const auto& groups = snap.groups();
  const GroupInfo* g = r.group >= 0 && static_cast<std::size_t>(r.group) < groups.size()
                           ? &groups[static_cast<std::size_t>(r.group)]
                           : nullptr;
  std::string queue;
  if (g && g->queue >= 0 && static_cast<std::size_t>(g->queue) < snap.queues().size())
    queue = snap.queues()[static_cast<std::size_t>(g->queue)].name;
  auto gang_prefix = [&] {
    if (r.pods <= 1) return std::string{};
    return "gang of " + std::to_string(r.pods) + " pods, " + std::to_string(r.placed) + " placed: ";
  };
  auto quantity = [](std::int64_t milli) { return model::Quantity::from_milli(milli).to_string(); };
  switch (r.cause) {
    case PendingCause::Quota:
      return "queue " + queue + " at quota: " + snap.resources().name(r.quota_dim) + " " +
             quantity(r.quota_used) + "/" + quantity(r.quota_limit) + " allocated, " +
             quantity(r.quota_asked) + " more asked";
    case PendingCause::Capacity:
    case PendingCause::Constraints:
      return gang_prefix() + nodes_message(r.nodes, snap, queue);
    case PendingCause::Preempting:
      return "preempting lower-priority pods or waiting for terminating ones; " + gang_prefix() +
             nodes_message(r.nodes, snap, queue);
    case PendingCause::QueueOrder: {
      std::string ahead = "an earlier workload";
      if (r.ahead >= 0 && static_cast<std::size_t>(r.ahead) < groups.size())
        ahead = groups[static_cast<std::size_t>(r.ahead)].key;
      return "strict FIFO: queue " + queue + " waits for " + ahead + ", which cannot be placed";
    }
    case PendingCause::GangMembers:
      return "gang not ready: " + std::to_string(r.pods) + " of minMember " +
             std::to_string(r.placed) + " pods exist";
  }
  return "?";
}

namespace {

// What a filter plugin checks, for the pending reasons' node tallies.
enum class FilterKind { Ready, Fit, Selector, QueueSelector, Other };
FilterKind filter_kind_of(std::string_view name) {
  if (name == "node-ready") return FilterKind::Ready;
  if (name == "node-resources-fit") return FilterKind::Fit;
  if (name == "node-selector") return FilterKind::Selector;
  if (name == "queue-node-selector") return FilterKind::QueueSelector;
  return FilterKind::Other;
}

enum class Outcome { Placed, Skipped, Blocked };

// Hashes of pending reasons (the scheduler reports one only when it changes). Each step is a
// bijection of the state for a given value (xor, then a multiply by an odd constant), so a
// reason that differs from the last in one number always hashes differently; one multiply per
// number keeps the skip of thousands of unchanged groups cheap.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x9e3779b97f4a7c15ULL; }
template <class... V>
std::uint64_t hash_of(PendingCause c, V... values) {
  std::uint64_t h = mix(0, static_cast<std::uint64_t>(c) + 1);
  ((h = mix(h, static_cast<std::uint64_t>(values))), ...);
  return h;
}
std::uint64_t reason_hash(const PendingReason& r) {
  const NodeTally& t = r.nodes;
  return hash_of(r.cause, t.nodes, t.not_ready, t.selector, t.queue_selector, t.gpu, t.cpu,
                 t.memory, t.extended, t.extended_dim, t.other, r.pods, r.placed, r.quota_dim,
                 r.quota_used, r.quota_asked, r.quota_limit, r.ahead, 0x5eed);
}

// Does the failed request f fit inside r (so that r fails too)?
bool covered_by(const DenseRes& f, const SparseRes& r) {
  for (std::size_t d = 0; d < f.size(); ++d)
    if (f[d] > at(r, static_cast<Dim>(d))) return false;
  return true;
}

}  // namespace

struct Scheduler::Impl {
  SchedulerOptions opt;
  std::vector<std::unique_ptr<QueueSortPlugin>> queue_sort;
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  std::vector<FilterKind> filter_kinds;  // by filter index
  std::vector<std::pair<std::unique_ptr<ScorePlugin>, int>> scores;
  std::vector<std::unique_ptr<PermitPlugin>> permits;
  bool spread_walk = false;
  std::size_t trial_size = 0;  // pods in the trial in progress (bonus_only_extra)
  bool trial_failed = false;   // the last fits_with_bonus ran its trial and it failed
  std::vector<NodeId> hint;    // a one-pod preemption trial looks only here (fits_with_bonus_after)

  // ---- per-cycle scratch ----
  const ClusterSnapshot* snap = nullptr;
  CycleState st;
  Decisions out;
  // Per-node and per-pod scratch sized to the snapshot once and kept zero between cycles: a
  // cycle clears only what it set (the lists beside them), never O(nodes) or O(pods).
  std::vector<std::uint32_t> seen;  // by NodeId: == stamp once considered by this find_node
  std::uint32_t stamp = 0;
  std::vector<char>
      evicted;  // by PodId: deleted by a decision of this cycle (kPreempted: preemption)
  std::vector<PodId> evicted_list;
  static constexpr char kPreempted = 2;
  // Requests that found no node this cycle, per (view epoch, queue selector, pod selector):
  // resources only shrink during a cycle, so any request covering one of them fails too (issue 5
  // "Scale"). Reservations (§8.6) differ per viewer: a memo serves only within the epoch of
  // growing views it was recorded in (CycleState::view_epoch).
  // Each failure keeps its node tally: a request it covers reports that tally (the pending
  // reason of a request that fails without a look is the one of the request that did look).
  std::map<std::tuple<std::int32_t, SelectorId, SelectorId>,
           std::vector<std::pair<DenseRes, NodeTally>>>
      fail_memo;
  // Gang cores that failed, by signature, with the failure (pods tried, placed, node tally).
  std::map<std::vector<std::int32_t>, PendingReason> gang_fail_memo;
  // One-pod preemptions that found no victim set this cycle, per (view epoch, queue selector,
  // pod selector): (queue priority, request). Within a cycle resources and victims only shrink,
  // and a queue of lower or equal priority has a subset of the victims, so a request covering a
  // failed one fails too (try_preempt would change nothing). Not used with intra-queue
  // preemption, whose victims depend on the group's own priority.
  std::map<std::tuple<std::int32_t, SelectorId, SelectorId>,
           std::vector<std::pair<std::int32_t, DenseRes>>>
      preempt_fail_memo;  // (view epoch, queue selector, sorted core shapes)
  // Nomination (§8.6) bookkeeping of the group being attempted and of this cycle's preemptors.
  bool keep_reservation = false;
  std::vector<char> nominated_now;  // by GroupId: its reservations were replaced this cycle
  std::vector<GroupId> nominated_now_list;
  std::vector<std::pair<std::size_t, GroupId>> preemptions;  // (index in out.evictions, preemptor)
  // By QueueId: where a victim hunt starts in the queue's running groups, past the leading ones
  // this cycle already evicted wholly (the snapshot does not change during a cycle).
  std::vector<std::set<VictimOrderKey>::const_iterator> victims_from;
  std::vector<char> victims_from_set;
  std::vector<QueueId> victims_from_list;
  std::vector<NodeId> extra;
  std::vector<NodeId> gang_nodes;
  std::vector<PodId> pending, core, surplus;
  // Reused buffers of the hot path (no allocation per attempt once warm).
  std::vector<PodId> order_buf, one_buf, todo_buf, extra_pods_buf;
  std::vector<char> taken_buf;
  std::vector<std::int32_t> signature;
  std::vector<std::pair<PodId, NodeId>> placed_core, placed_one, placed_bonus;
  std::vector<std::size_t> cursor;  // by QueueId: position in QueueInfo::pending_index
  std::vector<QueueId> heap;
  // By QueueId, for the fast skip (t9k_stage): a failing group of this queue would look for
  // victims, and the queue's GPU quota (max when unlimited).
  std::vector<char> may_preempt;
  std::vector<std::int64_t> gpu_quota;
  // Pending reasons. `tally` is the node tally of the find_node in progress (outside preemption
  // trials only); `why` is the failure of the attempt in progress.
  NodeTally tally;
  std::int32_t visited = 0;      // present nodes the find_node in progress looked at
  std::vector<NodeId> deferred;  // find_node_whole: extras tallied only if the search fails
  PendingReason why;
  bool gang_members_why = false;  // the attempt in progress stopped at §8.3 permit (GangMembers)
  // What was last reported for each default-scheduler pod (T9k groups keep it in their
  // PendingEntry), reset when the id goes to another pod (another sequence). No decision reads it.
  struct LastReason {
    std::uint64_t hash = 0;
    std::uint64_t sequence = 0;
  };
  std::vector<LastReason> last_by_pod;
  // The queue-level part of a skipped group's reason hash, kept while its numbers stay the same
  // (one multiply per skipped group instead of four).
  std::tuple<std::int64_t, std::int64_t, std::uint64_t> quota_hash{-1, -1, 0};  // used, limit, hash
  std::pair<std::int64_t, std::uint64_t> capacity_hash{-1, 0};                  // nodes, hash

  explicit Impl(SchedulerOptions o) : opt(std::move(o)) {
    if (auto problems = opt.validate(); !problems.empty()) throw OptionsError(problems);
    for (const auto& n : opt.queue_sort) queue_sort.push_back(make_queue_sort_plugin(n, opt));
    for (const auto& n : opt.filters) {
      filters.push_back(make_filter_plugin(n));
      filter_kinds.push_back(filter_kind_of(n));
    }
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

  // The tally of a recorded failure covering this request, or nullptr.
  const NodeTally* memo_fails(const PodInfo& p, const QueueInfo* q) const {
    if (st.bonus_active()) return nullptr;
    const auto it = fail_memo.find({st.view_epoch(), q ? q->selector : kNone, p.selector});
    if (it == fail_memo.end()) return nullptr;
    for (const auto& [f, t] : it->second)
      if (covered_by(f, p.request)) return &t;
    return nullptr;
  }

  void memo_record(const PodInfo& p, const QueueInfo* q) {
    if (st.bonus_active()) return;
    auto& list = fail_memo[{st.view_epoch(), q ? q->selector : kNone, p.selector}];
    if (list.size() < 16) list.emplace_back(to_dense(p.request), tally);
  }

  // ---- pending reasons (docs/scheduler.md "Why is this job pending?") -------------------------

  // The first filter that turns node n away; a node short of room that a later filter would
  // exclude anyway (readiness, selectors) counts as excluded: more room would not help there.
  void note_reject(std::size_t filter, const PodInfo& p, const QueueInfo* q, NodeId n) {
    if (filter_kinds[filter] == FilterKind::Fit) {
      for (std::size_t j = filter + 1; j < filters.size(); ++j) {
        if (filter_kinds[j] == FilterKind::Other || filters[j]->filter(st, p, q, n)) continue;
        filter = j;
        break;
      }
    }
    switch (filter_kinds[filter]) {
      case FilterKind::Ready:
        ++tally.not_ready;
        return;
      case FilterKind::Selector:
        ++tally.selector;
        return;
      case FilterKind::QueueSelector:
        ++tally.queue_selector;
        return;
      case FilterKind::Other:
        ++tally.other;
        return;
      case FilterKind::Fit:
        break;
    }
    bool any = false;
    Dim extended = kNone;  // the node's first short extended resource; several count once
    bool several = false;
    for (const auto& [d, amount] : p.request) {
      if (st.free(n, d) >= amount) continue;
      any = true;
      if (d == kDimGpu)
        ++tally.gpu;
      else if (d == kDimCpu)
        ++tally.cpu;
      else if (d == kDimMemory)
        ++tally.memory;
      else if (extended == kNone)
        extended = d;
      else
        several = true;
    }
    if (!any) ++tally.gpu;  // a share: no GPU slot with room for it
    if (extended != kNone) {
      // Named only while every node counted lacks that one resource alone.
      const bool same = !several && (tally.extended == 0 || tally.extended_dim == extended);
      tally.extended_dim = same ? extended : kNone;
      ++tally.extended;
    }
  }
  // A find_node that found nothing: the nodes it never looked at have fewer free GPUs than asked.
  void close_tally() {
    tally.nodes = static_cast<std::int32_t>(snap->nodes_by_free_gpu().size());
    tally.gpu += std::max<std::int32_t>(0, tally.nodes - visited);
  }
  static PendingCause cause_of(const NodeTally& t) {
    const bool room = t.gpu + t.cpu + t.memory + t.extended > 0 || t.nodes == 0;
    return room || t.other > 0 ? PendingCause::Capacity : PendingCause::Constraints;
  }
  void why_nodes(const NodeTally& t, std::size_t pods, std::size_t placed) {
    why = PendingReason{};
    why.cause = cause_of(t);
    why.nodes = t;
    why.pods = static_cast<std::int32_t>(pods);
    why.placed = static_cast<std::int32_t>(placed);
  }
  // The first resource the quota refuses (quota_ok failed for this request).
  void why_quota(QueueId q, const SparseRes& request) {
    why = PendingReason{};
    why.cause = PendingCause::Quota;
    const auto& info = queue(q);
    const auto& alloc = st.queue_allocated(q);
    for (const Dim d : info.quota_dims) {
      if (at(alloc, d) + at(request, d) <= at(info.quota, d)) continue;
      why.quota_dim = d;
      why.quota_used = at(alloc, d);
      why.quota_asked = at(request, d);
      why.quota_limit = at(info.quota, d);
      return;
    }
  }
  // Reports a reason unless the workload's last reported reason is the same (by hash:
  // `reported`), like Kubernetes' event aggregation; `continued` says whether this wait reported
  // before. The scratch lives as long as the wait: a PendingEntry exists exactly while its group
  // is pending, and every cycle visits every entry (and every pending default pod), so an
  // unchanged reason costs a read and no write. `make` builds the reason only when it is
  // reported; the hash of a skipped group's reason comes from its few numbers. A reason that
  // moves between the skip and an attempt is reported once more, which costs only a line.
  template <class Make>
  void report(std::uint64_t& reported, std::uint64_t hash, GroupId gid, PodId pod,
              std::uint64_t sequence, Make&& make) {
    hash |= 1;  // never 0, which means "nothing reported in this wait"
    const bool continued = reported != 0;
    if (reported == hash) return;
    reported = hash;
    PendingReason r = make();
    r.group = gid;
    r.pod = pod;
    r.sequence = sequence;
    r.continued = continued;
    out.pending.push_back(r);
  }
  void report_group(const PendingEntry& e, std::uint64_t hash, const auto& make) {
    report(e.reported, hash, group_of(e.key), kNone, std::get<2>(e.key), make);
  }
  void report_group(const PendingEntry& e, const PendingReason& r) {
    report_group(e, reason_hash(r), [&] { return r; });
  }
  // Default-scheduler pods: by PodId, with the pod's creation sequence (ids are reused).
  void report_pod(PodId id, std::uint64_t sequence, const PendingReason& r) {
    if (last_by_pod.size() <= static_cast<std::size_t>(id))
      last_by_pod.resize(static_cast<std::size_t>(id) + 1);
    LastReason& last = last_by_pod[static_cast<std::size_t>(id)];
    if (last.sequence != sequence) last = LastReason{0, sequence};
    report(last.hash, reason_hash(r), kNone, id, sequence, [&] { return r; });
  }

  // Filter then score; the candidate walk follows the free-GPU index (bin-pack order) and stops
  // after max_feasible_nodes feasible nodes. Ties go to the earlier candidate.
  // ---- shared by both candidate walks ----
  void next_stamp() {
    if (++stamp == 0) {
      std::fill(seen.begin(), seen.end(), 0);
      stamp = 1;
    }
  }
  // First time this search sees node n, and it passes every filter.
  bool first_feasible(NodeId n, const PodInfo& p, const QueueInfo* q) {
    auto& s = seen[static_cast<std::size_t>(n)];
    if (s == stamp) return false;
    s = stamp;
    if (!node(n).present) return false;
    ++visited;
    for (std::size_t i = 0; i < filters.size(); ++i)
      if (!filters[i]->filter(st, p, q, n)) {
        if (!st.bonus_active()) note_reject(i, p, q, n);
        return false;
      }
    return true;
  }
  std::int64_t weighted_score(const PodInfo& p, NodeId n, const PlacementContext& ctx) const {
    std::int64_t score = 0;
    for (const auto& [plugin, weight] : scores) score += weight * plugin->score(st, p, n, ctx);
    return score;
  }
  // The plugins' extra candidates, then (in a preemption trial, unless the caller walks them
  // itself) the nodes getting resources back.
  void collect_extra(const PodInfo& p, const PlacementContext& ctx, bool with_bonus = true) {
    extra.clear();
    for (const auto& [plugin, weight] : scores) plugin->extra_candidates(st, p, ctx, extra);
    if (with_bonus && st.bonus_active())
      extra.insert(extra.end(), st.bonus_nodes().begin(), st.bonus_nodes().end());
  }

  // find_node_whole or find_node_shared, keeping the node tally of a failure for the pending
  // reason.
  std::optional<NodeId> find_node(const PodInfo& p, const QueueInfo* q) {
    tally = NodeTally{};
    visited = 0;
    const auto n = p.gpu_share > 0 ? find_node_shared(p, q) : find_node_whole(p, q);
    if (!n && !st.bonus_active()) close_tally();
    return n;
  }

  // Outside a trial an extra candidate without the pod's GPUs fails node-resources-fit (a
  // mandatory filter) whatever else it passes, so it is not filtered one by one; but its
  // rejection counts in the node tally of a failed search, so it is stamped as seen (visited)
  // then, and filtered for the tally only if the search fails. The tally is counts: the same.
  std::optional<NodeId> find_node_whole(const PodInfo& p, const QueueInfo* q) {
    deferred.clear();
    const auto n = search_whole(p, q);
    if (!n)
      for (const NodeId m : deferred)
        for (std::size_t i = 0; i < filters.size(); ++i)
          if (!filters[i]->filter(st, p, q, m)) {
            note_reject(i, p, q, m);
            break;
          }
    return n;
  }
  void defer_reject(NodeId n) {
    auto& s = seen[static_cast<std::size_t>(n)];
    if (s == stamp) return;
    s = stamp;
    if (!node(n).present) return;
    ++visited;
    deferred.push_back(n);
  }
  std::optional<NodeId> search_whole(const PodInfo& p, const QueueInfo* q) {
    const std::int64_t gpu = at(p.request, kDimGpu);
    if (!st.bonus_active()) {
      const auto top = st.max_free_gpu();
      if (!top || *top < gpu) return std::nullopt;
    }
    next_stamp();
    const PlacementContext ctx{gang_nodes};
    std::optional<NodeId> best;
    std::int64_t best_score = 0;
    int feasible = 0;
    const int limit = opt.max_feasible_nodes;
    auto consider = [&](NodeId n) {
      if (!first_feasible(n, p, q)) return false;
      const std::int64_t score = weighted_score(p, n, ctx);
      if (!best || score > best_score) {
        best = n;
        best_score = score;
      }
      ++feasible;
      return limit > 0 && feasible >= limit;
    };
    // The bonus nodes come after the plugins' extras, as in collect_extra, but only those with
    // the GPUs for the pod: the rest would fail node-resources-fit, and in a trial a rejection
    // counts nowhere (no tally), so skipping them keeps every decision. With thousands of
    // terminating pods' nodes and victims in the bonus this was most of a busy cluster's time.
    const bool bonus_walk = st.bonus_active() && gpu > 0;
    collect_extra(p, ctx, !bonus_walk);
    if (bonus_only_extra() && !hint.empty()) {
      for (const NodeId n : hint)
        if (consider(n)) return best;
      return best;
    }
    for (const NodeId n : extra) {
      if (gpu > 0 && st.free(n, kDimGpu) < gpu) {  // fails node-resources-fit
        if (!st.bonus_active()) defer_reject(n);   // in a trial a rejection counts nowhere
        continue;
      }
      if (consider(n)) return best;
    }
    if (bonus_walk && st.walk_bonus(gpu, consider)) return best;
    if (bonus_only_extra()) return best;
    if (spread_walk) {
      st.walk_down(gpu, consider);
      return best;
    }
    if (st.bonus_active()) {
      st.walk_up(gpu, consider);
      return best;
    }
    // The walk goes up in free GPUs, so once even the best score a node with this many free
    // GPUs could get does not beat the best so far, no later node can win (ties go to the
    // earlier one): stop, with the decision the full walk would make. A node whose GPUs a
    // reservation withholds has fewer free than its key, so the bound starts from the least of
    // those. Free CPU likewise: the snapshot's index bounds it per free-GPU level, and the nodes
    // this cycle changed are looked at one by one (computed once, when first needed).
    const std::int64_t withheld = st.min_withheld_free_gpu();
    const std::int64_t cpu = at(p.request, kDimCpu);
    std::optional<std::int64_t> changed_cpu;
    std::int64_t bound_at = std::numeric_limits<std::int64_t>::min();
    std::int64_t bound = 0;
    st.walk_up(gpu, [&](NodeId n) {
      if (best) {
        const std::int64_t at_least = std::min(st.free(n, kDimGpu), withheld);
        if (at_least != bound_at) {
          bound_at = at_least;
          if (!changed_cpu) changed_cpu = st.least_changed_free_cpu(cpu);
          const Reach reach{
              at_least, std::min(*changed_cpu, snap->nodes_by_free_gpu().least_cpu(at_least, cpu))};
          bound = max_weighted_score(p, reach, ctx);
        }
        if (bound <= best_score) return true;
      }
      return consider(n);
    });
    return best;
  }
  std::int64_t max_weighted_score(const PodInfo& p, const Reach& reach,
                                  const PlacementContext& ctx) const {
    std::int64_t bound = 0;
    for (const auto& [plugin, weight] : scores)
      bound += weight * plugin->max_score(st, p, reach, ctx);
    return bound;
  }

  // A share of one GPU (docs/scheduler.md "Shared GPUs"): best fit on the GPU with the least
  // room left after it, across the candidate nodes; the score plugins break ties. Candidates in
  // order: the plugins' extras and the trial's bonus nodes, the nodes whose slots this cycle
  // changed, the snapshot's used slots from the smallest room that holds the share upwards
  // (stopping once no room can beat the best), and only if no used slot holds it, nodes with a
  // whole free GPU by the usual walk (bounded by max_feasible_nodes).
  std::optional<NodeId> find_node_shared(const PodInfo& p, const QueueInfo* q) {
    const std::int32_t g = p.gpu_share;
    next_stamp();
    const PlacementContext ctx{gang_nodes};
    std::optional<NodeId> best;
    std::int32_t best_room = 0;
    std::int64_t best_score = 0;
    int feasible = 0;
    auto consider = [&](NodeId n) {
      if (!first_feasible(n, p, q)) return;
      const std::int32_t room = st.share_slot(n, g).second;
      const std::int64_t score = weighted_score(p, n, ctx);
      if (!best || room < best_room || (room == best_room && score > best_score)) {
        best = n;
        best_room = room;
        best_score = score;
      }
      ++feasible;
    };
    collect_extra(p, ctx);
    if (bonus_only_extra() && !hint.empty()) {
      for (const NodeId n : hint) consider(n);
      return best;
    }
    for (const NodeId n : extra) consider(n);
    if (bonus_only_extra()) return best;
    for (const NodeId n : st.share_nodes()) consider(n);
    const auto& rooms = snap->share_rooms();
    for (auto it = rooms.lower_bound(
             {g, std::numeric_limits<NodeId>::min(), std::numeric_limits<std::int32_t>::min()});
         it != rooms.end(); ++it) {
      const auto& [room, n, slot_index] = *it;
      if (best && room - g > best_room) break;
      if (!st.share_changed(n)) consider(n);
    }
    constexpr std::int32_t kWhole = 1000;
    if (best && best_room < kWhole - g) return best;  // a used slot: no unused one is closer
    const int limit = opt.max_feasible_nodes;
    feasible = 0;
    auto consider_whole = [&](NodeId n) {
      consider(n);
      return limit > 0 && feasible >= limit;
    };
    if (!spread_walk)
      st.walk_up(kWhole, consider_whole);
    else
      st.walk_down(kWhole, consider_whole);
    return best;
  }

  // A preemption trial of one pod looks only at the nodes that get something back (and the
  // plugins' extras): try_preempt runs right after the same pod failed everywhere in the same
  // view, and without a bonus a node offers no more in a trial than outside one (the
  // reservations held against the viewer only grow: held >= hold), so the walk over every other
  // node could find nothing. Same decisions, without an O(nodes) walk per victim tried.
  bool bonus_only_extra() const { return st.bonus_active() && trial_size == 1; }

  // Trial placement of `pods` (all or nothing). On success the placements stay taken in the
  // cycle state and are returned in `placed`; on failure everything is given back.
  bool trial(const std::vector<PodId>& pods, const QueueInfo* q,
             std::vector<std::pair<PodId, NodeId>>& placed) {
    placed.clear();
    gang_nodes.clear();
    trial_size = pods.size();
    for (const PodId id : pods)
      if (const NodeTally* t = memo_fails(pod(id), q)) {
        why_nodes(*t, pods.size(), 0);
        return false;
      }
    // Largest GPU requests first: they have the fewest candidate nodes.
    order_buf.assign(pods.begin(), pods.end());
    std::stable_sort(order_buf.begin(), order_buf.end(), [&](PodId a, PodId b) {
      return at(pod(a).request, kDimGpu) > at(pod(b).request, kDimGpu);
    });
    for (const PodId id : order_buf) {
      const auto n = find_node(pod(id), q);
      if (!n) {
        if (!st.bonus_active()) why_nodes(tally, pods.size(), placed.size());
        if (placed.empty()) memo_record(pod(id), q);
        rollback(placed);
        return false;
      }
      st.take_pod(*n, id, pod(id));
      placed.emplace_back(id, *n);
      gang_nodes.push_back(*n);
    }
    return true;
  }

  void rollback(std::vector<std::pair<PodId, NodeId>>& placed) {
    for (const auto& [id, n] : placed) st.take_pod(n, id, pod(id), -1);
    placed.clear();
    gang_nodes.clear();
  }

  void commit(const std::vector<std::pair<PodId, NodeId>>& placed) {
    for (const auto& [id, n] : placed) {
      const auto& p = pod(id);
      if (p.queue != kNone) st.add_queue_allocated(p.queue, p.request);
      out.bindings.push_back(
          Binding{p.key, node(n).name, p.gpu_share > 0 ? st.slot_of(id) : kNone, id, n});
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
        mark_evicted(id, 1);
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

  // Could a failing group of q look for victims (try_preempt does something only then)?
  bool queue_may_preempt(QueueId q) const {
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
  bool skippable(const PendingEntry& e, QueueId q, std::int64_t max_free, bool gang) {
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
      const auto nodes = static_cast<std::int32_t>(snap->nodes_by_free_gpu().size());
      const std::int32_t pods = gang && !e.running ? e.need : 1;
      if (capacity_hash.first != nodes)
        capacity_hash = {nodes, hash_of(PendingCause::Capacity, nodes)};
      report_group(e, mix(capacity_hash.second, static_cast<std::uint64_t>(pods)), [&] {
        PendingReason r;
        r.cause = PendingCause::Capacity;
        r.nodes.nodes = nodes;
        r.nodes.gpu = nodes;
        r.pods = pods;
        return r;
      });
      return true;
    }
    return false;
  }

  void t9k_stage() {
    const std::size_t nq = snap->queues().size();
    cursor.assign(nq, 0);
    may_preempt.assign(nq, 0);
    gpu_quota.assign(nq, std::numeric_limits<std::int64_t>::max());
    auto after = [this](QueueId a, QueueId b) { return compare_queues(a, b) > 0; };
    heap.clear();
    for (const auto& [neg_prio, q] : snap->queues_by_priority()) {
      const auto& info = queue(q);
      if (info.pending_index.empty()) continue;
      may_preempt[static_cast<std::size_t>(q)] = queue_may_preempt(q);
      if (info.has_quota && std::find(info.quota_dims.begin(), info.quota_dims.end(), kDimGpu) !=
                                info.quota_dims.end())
        gpu_quota[static_cast<std::size_t>(q)] = at(info.quota, kDimGpu);
      heap.push_back(q);
      std::push_heap(heap.begin(), heap.end(), after);
    }
    const bool strict = opt.backfill == BackfillPolicy::StrictFifo;
    const bool gang = !permits.empty();
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), after);
      const QueueId q = heap.back();
      heap.pop_back();
      const auto& index = queue(q).pending_index;
      auto& it = cursor[static_cast<std::size_t>(q)];
      // Skipped attempts change nothing and, with skip-and-continue, their outcome does not
      // matter; a failed attempt leaves the queue ranks unchanged, so the same queue would be
      // popped again: walking its run of skippable groups here is the same sequence. (With
      // strict-fifo the first blocked group ends the queue: nothing to skip.)
      if (!strict) {
        const std::size_t first = it;
        const auto top = st.max_free_gpu();
        const std::int64_t max_free = top ? *top : -1;
        while (it < index.size() && skippable(index[it], q, max_free, gang)) ++it;
        if (it > first && !st.reservations().empty()) {
          // Replay the views the skipped attempts would have set: within one queue they only
          // grow with the rank (no skipped group holds a reservation), so the first and the last
          // give the same view epochs as all of them (failure memos are keyed by epoch).
          const std::int32_t qp = queue(q).priority;
          st.set_viewer(Viewer{false, group_of(index[first].key), q, qp, index[first].key});
          st.set_viewer(Viewer{false, group_of(index[it - 1].key), q, qp, index[it - 1].key});
        }
        if (it == index.size()) continue;
      }
      const PendingEntry& entry = index[it];
      const GroupId g = group_of(entry.key);
      ++it;
      const Outcome o = attempt_group(q, entry);
      if (o == Outcome::Blocked && strict) {  // §11 Q11 option: the queue waits
        for (std::size_t rest = it; rest < index.size(); ++rest) {
          report_group(index[rest], hash_of(PendingCause::QueueOrder, g, std::get<2>(entry.key)),
                       [&] {
                         PendingReason r;
                         r.cause = PendingCause::QueueOrder;
                         r.ahead = g;
                         return r;
                       });
        }
        continue;
      }
      if (it < index.size()) {
        heap.push_back(q);
        std::push_heap(heap.begin(), heap.end(), after);
      }
    }
  }

  void mark_evicted(PodId p, char how) {
    auto& e = evicted[static_cast<std::size_t>(p)];
    if (!e) evicted_list.push_back(p);
    e = how;
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

  bool place_individually(QueueId q, PodId id) {
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
  Outcome attempt_group(QueueId q, const PendingEntry& entry) {
    const GroupId gid = group_of(entry.key);
    const GroupInfo& g = group(gid);
    st.set_viewer(Viewer{false, gid, q, queue(q).priority, g.order_key(gid)});
    keep_reservation = false;
    gang_members_why = false;
    const Outcome o = attempt_group_views(q, gid);
    if (gang_members_why) report_group(entry, why);
    if (o == Outcome::Blocked) {
      // A group that preempts (or waits for its victims) says so, unless its quota blocked it.
      if (keep_reservation && why.cause != PendingCause::Quota)
        why.cause = PendingCause::Preempting;
      report_group(entry, why);
    }
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
    signature.assign({st.view_epoch(), qi.selector});
    for (const PodId p : core) signature.push_back(pod(p).shape);
    std::sort(signature.begin() + 2, signature.end());
    auto& placed = placed_core;
    bool ok = false;
    if (const auto memo = gang_fail_memo.find(signature); memo == gang_fail_memo.end()) {
      ok = trial(core, &qi, placed);
      for (const auto& pm : permits) ok = ok && pm->permit(core.size(), placed.size());
      if (!ok) {
        rollback(placed);
        gang_fail_memo.emplace(signature, why);
      }
    } else {
      why = memo->second;
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
    // The totals do not count the whole GPUs that shares coming back would free, nor the rooms
    // of used slots: with shares anywhere, GPUs are left to the trial.
    const bool shares = snap->shared_pod_count() > 0;
    for (std::size_t d = 0; d < need.size(); ++d)
      if (!(shares && d == static_cast<std::size_t>(kDimGpu)) &&
          need[d] > st.total_free(static_cast<Dim>(d)))
        return false;
    return true;
  }

  bool fits_with_bonus(const std::vector<PodId>& pods, const QueueInfo* q) {
    trial_failed = false;
    if (!covers_total(pods)) return false;
    const bool ok = trial(pods, q, placed_bonus);
    rollback(placed_bonus);
    trial_failed = !ok;
    return ok;
  }

  // Could a node of `u` (just added to the bonus) take one of `pods` now?
  bool unit_may_help(const Unit& u, const std::vector<PodId>& pods) const {
    for (const PodId v : u.pods)
      for (const PodId p : pods)
        if (st.fits_pod(pod(v).node, pod(p))) return true;
    return false;
  }

  // How many copies of `p` node n holds in the current view, by resources alone.
  std::int64_t copies(NodeId n, const PodInfo& p) const {
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
  bool fits_with_bonus_after(const Unit& u, const std::vector<PodId>& pods, const QueueInfo* q) {
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

  void bonus_unit(const Unit& u, std::int64_t sign) {
    for (const PodId p : u.pods) st.add_bonus_pod(pod(p), sign);
  }

  void try_preempt(QueueId q, GroupId gid, const std::vector<PodId>& pods) {
    const QueueInfo& qi = queue(q);
    const GroupInfo& g = group(gid);
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
        for (std::size_t i = 0; i < surplus_n && !fits; ++i) {
          units.push_back(Unit{vg, {bound[i]}, false});
          bonus_unit(units.back(), 1);
          fits = fits_with_bonus_after(units.back(), pods, &qi);
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
        fits = fits_with_bonus_after(units.back(), pods, &qi);
        if (fits) break;
      }
      if (fits) break;
    }
    if (!fits) {
      st.clear_bonus();
      if (memo) {
        auto& list = preempt_fail_memo[memo_key];
        if (list.size() < 16) list.emplace_back(qi.priority, to_dense(pod(pods[0]).request));
      }
      return;
    }
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
    const std::string msg = "preempted by " + g.key + " of queue " + qi.name + " (priority " +
                            std::to_string(qi.priority) + ")";
    for (const auto& u : units) {
      if (!u.active) continue;
      for (const PodId p : u.pods) {
        mark_evicted(p, kPreempted);
        preemptions.emplace_back(out.evictions.size(), gid);
        out.evictions.push_back(Eviction{
            pod(p).key, model::DeletionReason::Preemption, msg, g.key, node(pod(p).node).name, {}});
      }
    }
  }

  // Each preemption eviction carries its preemptor's whole plan as it stands at the end of the
  // cycle, so that ClusterSnapshot::nominate may be called once per eviction (§8.6 nomination).
  void attach_plans() {
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

  void default_stage() {
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
          Binding{p.key, node(*n).name, p.gpu_share > 0 ? st.slot_of(id) : kNone, id, *n});
    }
  }

  Decisions run(const ClusterSnapshot& s, model::SimTime now) {
    snap = &s;
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
};

Scheduler::Scheduler(SchedulerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
Scheduler::~Scheduler() = default;
Scheduler::Scheduler(Scheduler&&) noexcept = default;
Scheduler& Scheduler::operator=(Scheduler&&) noexcept = default;

const SchedulerOptions& Scheduler::options() const { return impl_->opt; }

Decisions Scheduler::schedule(const ClusterSnapshot& snapshot, model::SimTime now) {
  return impl_->run(snapshot, now);
}

std::optional<Rejection> Scheduler::admit(const ClusterSnapshot& snapshot,
                                          const AdmissionRequest& request) const {
  const std::string qname = request.queue.empty() ? model::kDefaultQueue : request.queue;
  const auto q = snapshot.find_queue(qname);
  if (!q)
    return Rejection{request.pod_group, RejectReason::QueueNotFound,
                     "queue " + qname + " does not exist"};
  const auto& info = snapshot.queues()[static_cast<std::size_t>(*q)];
  if (info.closed)  // §8.8, §11 Q15: new workloads are refused; admitted ones continue
    return Rejection{request.pod_group, RejectReason::QueueClosed, "queue " + qname + " is closed"};
  if (impl_->opt.quota_mode == QuotaMode::RejectAtAdmission && info.has_quota) {
    for (const Dim d : info.quota_dims) {
      const auto& name = snapshot.resources().name(d);
      std::int64_t want = model::get_resource(request.requests, name).milli();
      // Shares of GPUs count as fractions of nvidia.com/gpu, as in the queue's `requested`.
      if (d == kDimGpu)
        want += model::get_resource(request.requests, model::kResourceGpuMilli).units_ceil();
      const std::int64_t used = at(info.requested, d);
      // As Kubernetes ResourceQuota: only the resources the new workload asks for are checked.
      if (want > 0 && used + want > at(info.quota, d))
        return Rejection{request.pod_group, RejectReason::QuotaExceeded,
                         "queue " + qname + " quota of " + name + " is " +
                             model::Quantity::from_milli(at(info.quota, d)).to_string() + "; " +
                             model::Quantity::from_milli(used).to_string() + " requested, " +
                             model::Quantity::from_milli(want).to_string() + " more asked"};
    }
  }
  return std::nullopt;
}

}  // namespace t9k::scheduler
