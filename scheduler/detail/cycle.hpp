// Internal: one scheduling cycle's state and steps (Scheduler::Impl). Its member functions are
// defined by what they do:
//   cycle.cpp            the cycle and its stages: maxDuration, the T9k queues (§8.5), the default
//                        scheduler; a group's attempt
//   placement.cpp        finding a node for a pod (filter, score, the free-GPU walks), gang trials
//   preemption.cpp       victims for a group that cannot be placed (§8.6, §11 Q9)
//   pending_reasons.cpp  why a group or pod waits (docs/scheduler.md "Why is this job pending?")
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "scheduler/cycle_state.hpp"
#include "scheduler/mask_tree.hpp"
#include "scheduler/min_tree.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/stages.hpp"

namespace t9k::scheduler::detail {

// What a filter plugin checks, for the pending reasons' node tallies.
enum class FilterKind { Ready, Fit, Selector, QueueSelector, Other };

inline FilterKind filter_kind_of(std::string_view name) {
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
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  return (h ^ v) * 0x9e3779b97f4a7c15ULL;
}

template <class... V>
std::uint64_t hash_of(PendingCause c, V... values) {
  std::uint64_t h = mix(0, static_cast<std::uint64_t>(c) + 1);
  ((h = mix(h, static_cast<std::uint64_t>(values))), ...);
  return h;
}

inline std::uint64_t reason_hash(const PendingReason& r) {
  const NodeTally& t = r.nodes;
  return hash_of(r.cause, t.nodes, t.not_ready, t.selector, t.queue_selector, t.gpu, t.cpu,
                 t.memory, t.extended, t.extended_dim, t.other, r.pods, r.placed, r.quota_dim,
                 r.quota_used, r.quota_asked, r.quota_limit, r.ahead, 0x5eed);
}

// Does the failed request f fit inside r (so that r fails too)?
inline bool covered_by(const DenseRes& f, const SparseRes& r) {
  for (std::size_t d = 0; d < f.size(); ++d)
    if (f[d] > at(r, static_cast<Dim>(d))) return false;
  return true;
}

}  // namespace t9k::scheduler::detail

namespace t9k::scheduler {

using detail::FilterKind;
using detail::Outcome;

struct Scheduler::Impl {
  SchedulerOptions opt;
  std::vector<std::unique_ptr<QueueSortStage>> queue_sort;
  std::vector<std::unique_ptr<FilterStage>> filters;
  std::vector<FilterKind> filter_kinds;  // by filter index
  std::vector<std::pair<std::unique_ptr<ScoreStage>, int>> scores;
  std::vector<std::unique_ptr<PermitStage>> permits;
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
  // Cores of one shape are kept in uniform_gang_memo instead, by (view epoch, queue selector,
  // shape, size): the same signature without a vector to build and compare (issue 49).
  std::map<std::vector<std::int32_t>, PendingReason> gang_fail_memo;
  // Look-up only, never iterated (absl's order is unspecified), as uniform_fail_memo below: a deep
  // queue looks a core up at every waiting gang's attempt. The reason's hash is kept with it.
  struct KnownFailure {
    PendingReason why;
    std::uint64_t hash = 0;  // reason_hash(why)
  };
  absl::flat_hash_map<std::tuple<std::int32_t, SelectorId, ShapeId, std::size_t>, KnownFailure>
      uniform_gang_memo;
  // Uniform gang cores (copies of one whole-GPU shape) whose trial placed some copies and then
  // found no node, per (view epoch, queue selector, shape): the copies placed, the failed search's
  // tally, and CycleState::changes() after the rollback. Filters and scores read only the node,
  // the shape and the gang's nodes so far, so while nothing has changed a core of more copies
  // places the same copies on the same nodes and fails at the same search: its reason is
  // why_nodes(tally, its size, placed) without the trial. A deep queue's waiting gangs of many
  // sizes otherwise each repeat O(free GPUs) searches every cycle (issue 49).
  struct UniformFail {
    std::uint64_t changes = 0;
    std::size_t placed = 0;
    NodeTally tally;
  };
  absl::flat_hash_map<std::tuple<std::int32_t, SelectorId, ShapeId>, UniformFail> uniform_fail_memo;
  // A trial of the core (all or nothing), answered from uniform_fail_memo when it can be.
  bool trial_core(const QueueInfo& qi, std::vector<std::pair<PodId, NodeId>>& placed);
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
  std::vector<std::int32_t> extra_rack_list;  // the score plugins' extra racks, in order
  bool room_used = false;  // the last search_whole took the extra racks' nodes from the index
  std::vector<NodeId> gang_nodes;
  std::vector<PodId> pending, core, surplus;
  // Reused buffers of the hot path (no allocation per attempt once warm).
  std::vector<PodId> order_buf, one_buf, todo_buf, extra_pods_buf;
  std::vector<char> taken_buf;
  std::vector<std::int32_t> signature;
  std::vector<std::pair<PodId, NodeId>> placed_core, placed_one, placed_bonus;
  std::vector<std::size_t> cursor;  // by QueueId: position in QueueInfo::pending_index
  // By QueueId: skip_value() of each entry of the queue's pending_index, kept between cycles
  // from the snapshot's notes (QueueInfo::touched, relaid) and the walk's own reports; invalid
  // after a walk that reported without keeping it (not plain) or on another snapshot.
  struct SkipIndex {
    MinTree tree;
    std::int32_t nodes = -1;  // the node count its values assume (the capacity reason's)
    bool valid = false;
  };
  std::vector<SkipIndex> skip;
  const ClusterSnapshot* skip_snapshot = nullptr;
  std::int64_t skip_value(const PendingEntry& e) const;
  std::int32_t skip_pods(const PendingEntry& e) const;
  std::uint64_t capacity_skip_hash(const PendingEntry& e) const;
  // The reason a capacity skip gives: `pods` of a group cannot be placed on `nodes` nodes.
  static PendingReason capacity_skip_reason(std::int32_t nodes, std::int32_t pods);
  MinTree& skip_tree(QueueId q);  // brought up to date with the snapshot's notes
  // Lazy waiting gangs (PendingEntry::lazy; lazy_waits.cpp, issue 49): in a plain queue, the
  // gangs whose wait the world has published and whose capacity reasons it only needs at the end
  // are passed by a mask tree instead of being attempted again for a reason that changes with
  // every capacity change; a gang is caught up (Decisions::caught_up) with the reason it had in
  // the last walk when the walk next looks at it. A queue's passable gangs fall into kinds (a
  // shape and a gang size), a bit of the masks each.
  std::uint32_t run_no = 0;  // cycles run (PendingEntry::reported_run)
  struct LazyTable {         // how one cycle's walk passed a queue's lazy gangs
    std::uint32_t run = 0;
    bool passing = false;  // the walk was plain: it may have passed gangs (lazy_next)
    // By shape index: the gangs of the shape from this key on were passed for capacity
    // (skippable() would have reported it: the free GPUs had fallen below the shape's).
    std::vector<std::optional<GroupOrderKey>> zone_from;
    std::int32_t nodes = 0;  // the node count of those capacity reasons
    // The least free GPUs a walk has seen, and whether they ever rose after it (they cannot
    // today: without preemption nothing is freed in a cycle, and trials roll back). The zones
    // and the memo's passes rely on it; if they rose, every later lazy gang is looked at.
    std::int64_t max_free = std::numeric_limits<std::int64_t>::max();
    bool rose = false;
    std::int32_t epoch = -1;  // the view epoch of the passes before, by uniform_gang_memo
    std::vector<std::optional<KnownFailure>> memo;  // by kind: uniform_gang_memo's failure
  };
  struct LazyShape {
    ShapeId shape = kNone;
    std::int64_t gpu = 0;    // its GPUs (PendingEntry::min_gpu)
    std::uint64_t bits = 0;  // its kinds' bits
  };
  struct LazyKind {
    std::int32_t shape = 0;  // index in LazyQueue::shapes
    std::int32_t size = 0;   // the gang's size (PendingEntry::need)
  };
  static constexpr std::size_t kLazyKinds = 64;  // a bit each; a gang of another is looked at
  struct LazyQueue {
    std::vector<LazyShape> shapes;  // in order of first sight
    std::vector<LazyKind> kinds;    // by bit, in order of first sight
    MaskTree tree;                  // by position in pending_index: a passable gang's kind bit
    std::uint64_t memo_ok = 0;  // kinds whose failure uniform_gang_memo holds, of cause Capacity
    std::int32_t memo_epoch = -1;
    std::uint32_t memo_run = 0;
    std::size_t memo_seen = 0;  // uniform_gang_memo.size() when memo_ok was brought up to date
    LazyTable prev, cur;        // the queue's last walk before this cycle's, and this cycle's
  };
  std::vector<LazyQueue> lazy;  // by QueueId
  bool lazy_allowed() const;    // the options let a gang's failure be known without its pods
  // The entry's kind if it is passable now (PendingEntry::passable), -1 if not; a kind first
  // seen is added.
  std::int32_t lazy_kind(QueueId q, const PendingEntry& e);
  // The uniform gang memo's failure of kind k in view epoch `epoch`, if it holds one.
  const KnownFailure* kind_failure(const LazyQueue& lq, std::size_t k, SelectorId sel,
                                   std::int32_t epoch) const;
  void rotate_lazy(QueueId q);  // at the queue's first walk in a cycle
  // The next position from `from` where the walk must look at a lazy gang (MaskTree::kNone for
  // none); the gangs before it are passed, and the cycle's table says how.
  std::size_t lazy_next(QueueId q, std::size_t from, std::int64_t max_free);
  bool passed_in(const LazyTable& t, const PendingEntry& e) const;
  // The reason a gang passed in the walk of table t had then, and its report hash.
  std::optional<std::pair<PendingReason, std::uint64_t>> passed_reason(const LazyTable& t,
                                                                       QueueId q,
                                                                       const PendingEntry& e) const;
  void catch_up(const LazyTable& t, QueueId q, const PendingEntry& e,
                std::vector<PendingReason>& to);
  void look_at(QueueId q, const PendingEntry& e);  // before the walk reports anything for it
  std::uint64_t refresh_lazy(QueueId q, std::size_t pos);  // an entry's kind bit, refreshed
  void close_lazy_tables();                                // at the end of the T9k stage
  // Entries passed in a queue's last walk and erased or reset since (QueueInfo::departed).
  void catch_up_departed(std::vector<PendingReason>& to);
  std::vector<PendingReason> lazy_reasons(const ClusterSnapshot& s);
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
  std::uint64_t why_hash = 0;     // reason_hash(why) when a memo gave `why` with it, else 0
  bool gang_permit_only = false;  // the permit stages are exactly "gang" (known_uniform_failure)
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
  explicit Impl(SchedulerOptions o);
  const PodInfo& pod(PodId p) const { return snap->pods()[static_cast<std::size_t>(p)]; }
  const GroupInfo& group(GroupId g) const { return snap->groups()[static_cast<std::size_t>(g)]; }
  const QueueInfo& queue(QueueId q) const { return snap->queues()[static_cast<std::size_t>(q)]; }
  const NodeInfo& node(NodeId n) const { return snap->nodes()[static_cast<std::size_t>(n)]; }
  // The tally of a recorded failure covering this request, or nullptr.
  const NodeTally* memo_fails(const PodInfo& p, const QueueInfo* q) const;
  void memo_record(const PodInfo& p, const QueueInfo* q);
  // The first filter that turns node n away; a node short of room that a later filter would
  // exclude anyway (readiness, selectors) counts as excluded: more room would not help there.
  void note_reject(std::size_t filter, const PodInfo& p, const QueueInfo* q, NodeId n);
  // A find_node that found nothing: the nodes it never looked at have fewer free GPUs than asked.
  void close_tally();
  static PendingCause cause_of(const NodeTally& t);
  void why_nodes(const NodeTally& t, std::size_t pods, std::size_t placed);
  // The first resource the quota refuses (quota_ok failed for this request).
  void why_quota(QueueId q, const SparseRes& request);
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
    report(e.reported, hash, group_of(e.key), kNone, e.key.sequence, make);
  }
  void report_group(const PendingEntry& e, const PendingReason& r);
  // Default-scheduler pods: by PodId, with the pod's creation sequence (ids are reused).
  void report_pod(PodId id, std::uint64_t sequence, const PendingReason& r);
  // Filter then score; the candidate walk follows the free-GPU index (bin-pack order) and stops
  // after max_feasible_nodes feasible nodes. Ties go to the earlier candidate.
  // ---- shared by both candidate walks ----
  void next_stamp();
  // First time this search sees node n, and it passes every filter.
  bool first_feasible(NodeId n, const PodInfo& p, const QueueInfo* q);
  std::int64_t weighted_score(const PodInfo& p, NodeId n, const PlacementContext& ctx) const;
  // The plugins' extra candidates, then (in a preemption trial, unless the caller walks them
  // itself) the nodes getting resources back.
  void collect_extra(const PodInfo& p, const PlacementContext& ctx, bool with_bonus = true);
  void collect_extra_racks(const PodInfo& p, const PlacementContext& ctx);  // extra_rack_list
  void expand_extra(bool with_bonus);    // `extra` from extra_rack_list (and the bonus nodes)
  std::size_t extra_rack_nodes() const;  // the nodes of the extra racks, each rack once
  template <class F>
  bool consider_room(std::int64_t gpu, F&& consider);
  // find_node_whole or find_node_shared, keeping the node tally of a failure for the pending
  // reason.
  std::optional<NodeId> find_node(const PodInfo& p, const QueueInfo* q);
  // Outside a trial an extra candidate without the pod's GPUs fails node-resources-fit (a
  // mandatory filter) whatever else it passes, so it is not filtered one by one; but its
  // rejection counts in the node tally of a failed search, so it is stamped as seen (visited)
  // then, and filtered for the tally only if the search fails. The tally is counts: the same.
  std::optional<NodeId> find_node_whole(const PodInfo& p, const QueueInfo* q);
  // Inlined: the loops over extra candidates call it for most of them (as a call, the hot
  // fleet's run took 0.1 % more instructions).
  [[gnu::always_inline]] void defer_reject(NodeId n) {
    auto& s = seen[static_cast<std::size_t>(n)];
    if (s == stamp) return;
    s = stamp;
    if (!node(n).present) return;
    ++visited;
    deferred.push_back(n);
  }
  // by_room: the extra racks' nodes may come from the free-GPU index (large racks).
  std::optional<NodeId> search_whole(const PodInfo& p, const QueueInfo* q, bool by_room);
  std::int64_t max_weighted_score(const PodInfo& p, const Reach& reach,
                                  const PlacementContext& ctx) const;
  // A share of one GPU (docs/scheduler.md "Shared GPUs"): best fit on the GPU with the least
  // room left after it, across the candidate nodes; the score plugins break ties. Candidates in
  // order: the plugins' extras and the trial's bonus nodes, the nodes whose slots this cycle
  // changed, the snapshot's used slots from the smallest room that holds the share upwards
  // (stopping once no room can beat the best), and only if no used slot holds it, nodes with a
  // whole free GPU by the usual walk (bounded by max_feasible_nodes).
  std::optional<NodeId> find_node_shared(const PodInfo& p, const QueueInfo* q);
  // A preemption trial of one pod looks only at the nodes that get something back (and the
  // plugins' extras): try_preempt runs right after the same pod failed everywhere in the same
  // view, and without a bonus a node offers no more in a trial than outside one (the
  // reservations held against the viewer only grow: held >= hold), so the walk over every other
  // node could find nothing. Same decisions, without an O(nodes) walk per victim tried.
  bool bonus_only_extra() const { return st.bonus_active() && trial_size == 1; }
  // Trial placement of `pods` (all or nothing). On success the placements stay taken in the
  // cycle state and are returned in `placed`; on failure everything is given back.
  bool trial(const std::vector<PodId>& pods, const QueueInfo* q,
             std::vector<std::pair<PodId, NodeId>>& placed);
  void rollback(std::vector<std::pair<PodId, NodeId>>& placed);
  void commit(const std::vector<std::pair<PodId, NodeId>>& placed);
  bool quota_ok(QueueId q, const SparseRes& request) const;
  void max_duration_stage(model::SimTime now);
  int compare_queues(QueueId a, QueueId b) const;
  // Could a failing group of q look for victims (try_preempt does something only then)?
  bool queue_may_preempt(QueueId q) const;
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
  bool skippable(const PendingEntry& e, QueueId q, std::int64_t max_free, bool gang);
  void t9k_stage();
  void mark_evicted(PodId p, char how);
  void collect_pending(const GroupInfo& g);
  // §8.4: the minMember core, honouring each role's minimum first; the rest is surplus.
  void split_core(const GroupInfo& g);
  bool place_individually(QueueId q, PodId id);
  // §8.6 nomination: the group sees only reservations of groups it does not outrank as used.
  // Its own reservation survives the attempt only if it still waits for it (it preempted, or
  // the resources coming back suffice); placed, or unable to use it now, it is released for the
  // rest of the cycle (the snapshot drops it once the group is bound).
  Outcome attempt_group(QueueId q, const PendingEntry& entry);
  Outcome attempt_group_views(QueueId q, GroupId gid, ShapeId shape);
  // A gang not yet running whose pending pods share one shape (PendingEntry::shape), in the
  // plain case (no role minimums, only the gang permit, no eviction or preemption this cycle):
  // its core is its first minMember pods, so quota, the failure memos and the uniform trial memo
  // answer a certain failure without collecting its pods; nullopt when the full attempt must run
  // (it may place, or the case is not plain). Decisions and reasons are the full attempt's.
  std::optional<Outcome> known_uniform_failure(QueueId q, const GroupInfo& g, ShapeId shape);
  struct Unit {
    GroupId group;
    std::vector<PodId> pods;
    bool whole;
    bool active = true;
  };
  bool covers_total(const std::vector<PodId>& pods) const;
  bool fits_with_bonus(const std::vector<PodId>& pods, const QueueInfo* q);
  // Could a node of `u` (just added to the bonus) take one of `pods` now?
  bool unit_may_help(const Unit& u, const std::vector<PodId>& pods) const;
  // How many copies of `p` node n holds in the current view, by resources alone.
  std::int64_t copies(NodeId n, const PodInfo& p) const;
  // fits_with_bonus right after `u` joined the bonus, every earlier state having failed: for one
  // pod only the nodes of `u` can have become feasible (bonus_only_extra), so only they are tried.
  // For a gang, when the trial before `u` joined failed and no node of `u` can take any of its
  // pods now, the trial would fail again: each find_node turns u's nodes away (a trial's
  // placements only take), every other node is as it was, so each pod goes where it went before
  // and the same pod finds nothing. Victims are mostly small, so most units skip the trial.
  bool fits_with_bonus_after(const Unit& u, const std::vector<PodId>& pods, const QueueInfo* q);
  void bonus_unit(const Unit& u, std::int64_t sign);
  void try_preempt(QueueId q, GroupId gid, const std::vector<PodId>& pods);
  std::vector<QueueId> victim_queues(QueueId q);
  bool choose_victims(const std::vector<QueueId>& victims_q, QueueId q, GroupId gid,
                      const std::vector<PodId>& pods, std::vector<Unit>& units);
  // Gives back, highest-ranked first, every unit the gang can do without.
  void reprieve(std::vector<Unit>& units, const std::vector<PodId>& pods, const QueueInfo& qi);
  // Reserves the gang's placement (§8.6 nomination) and evicts the chosen victims.
  void nominate_and_evict(QueueId q, GroupId gid, const std::vector<PodId>& pods,
                          const std::vector<Unit>& units);
  // Each preemption eviction carries its preemptor's whole plan as it stands at the end of the
  // cycle, so that ClusterSnapshot::nominate may be called once per eviction (§8.6 nomination).
  void attach_plans();
  void default_stage();
  Decisions run(const ClusterSnapshot& s, model::SimTime now);
};

}  // namespace t9k::scheduler
