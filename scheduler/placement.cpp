// Placement: a node for a pod (filters, weighted scores, the walks over free GPUs and over shared
// GPUs' slots), and gang trials committed or rolled back.
#include "scheduler/detail/cycle.hpp"

#include <algorithm>
#include <limits>

namespace t9k::scheduler {

using namespace detail;

// The tally of a recorded failure covering this request, or nullptr.
const NodeTally* Scheduler::Impl::memo_fails(const PodInfo& p, const QueueInfo* q) const {
  if (st.bonus_active()) return nullptr;
  const auto it = fail_memo.find({st.view_epoch(), q ? q->selector : kNone, p.selector});
  if (it == fail_memo.end()) return nullptr;
  for (const auto& [f, t] : it->second)
    if (covered_by(f, p.request)) return &t;
  return nullptr;
}

void Scheduler::Impl::memo_record(const PodInfo& p, const QueueInfo* q) {
  if (st.bonus_active()) return;
  auto& list = fail_memo[{st.view_epoch(), q ? q->selector : kNone, p.selector}];
  if (list.size() < 16) list.emplace_back(to_dense(p.request), tally);
}

// Filter then score; the candidate walk follows the free-GPU index (bin-pack order) and stops
// after max_feasible_nodes feasible nodes. Ties go to the earlier candidate.
// ---- shared by both candidate walks ----
void Scheduler::Impl::next_stamp() {
  if (++stamp == 0) {
    std::fill(seen.begin(), seen.end(), 0);
    stamp = 1;
  }
}

// First time this search sees node n, and it passes every filter.
bool Scheduler::Impl::first_feasible(NodeId n, const PodInfo& p, const QueueInfo* q) {
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

std::int64_t Scheduler::Impl::weighted_score(const PodInfo& p, NodeId n,
                                             const PlacementContext& ctx) const {
  std::int64_t score = 0;
  for (const auto& [plugin, weight] : scores) score += weight * plugin->score(st, p, n, ctx);
  return score;
}

// The plugins' extra candidates, then (in a preemption trial, unless the caller walks them
// itself) the nodes getting resources back.
void Scheduler::Impl::collect_extra(const PodInfo& p, const PlacementContext& ctx,
                                    bool with_bonus) {
  collect_extra_racks(p, ctx);
  expand_extra(with_bonus);
}

void Scheduler::Impl::expand_extra(bool with_bonus) {
  extra.clear();
  for (const std::int32_t r : extra_rack_list)
    extra.insert(extra.end(), snap->racks()[static_cast<std::size_t>(r)].nodes.begin(),
                 snap->racks()[static_cast<std::size_t>(r)].nodes.end());
  if (with_bonus && st.bonus_active())
    extra.insert(extra.end(), st.bonus_nodes().begin(), st.bonus_nodes().end());
}

void Scheduler::Impl::collect_extra_racks(const PodInfo& p, const PlacementContext& ctx) {
  extra_rack_list.clear();
  for (const auto& [plugin, weight] : scores) plugin->extra_racks(st, p, ctx, extra_rack_list);
}

// How many nodes the extra racks hold (each rack once).
std::size_t Scheduler::Impl::extra_rack_nodes() const {
  std::size_t nodes = 0;
  for (auto r = extra_rack_list.begin(); r != extra_rack_list.end(); ++r)
    if (std::find(extra_rack_list.begin(), r, *r) == r)
      nodes += snap->racks()[static_cast<std::size_t>(*r)].nodes.size();
  return nodes;
}

// The extra racks' nodes with room, considered as the loop over `extra` in search_whole would:
// the same nodes in the same order. The snapshot's index holds each node at its free GPUs before
// this cycle's placements and reservations, at least what the cycle sees (outside a preemption
// trial nothing is given back beyond it), so every node with room in the cycle is among those it
// gives, in id order within a rack's id range. The loop's deferrals of the nodes without room are
// left out: they only make a failure's node tally, and a failure searches again without the index
// (find_node_whole); no later walk looks at a node without room. True when `consider` stops.
template <class F>
bool Scheduler::Impl::consider_room(std::int64_t gpu, F&& consider) {
  room_used = true;
  const FreeGpuIndex& index = snap->nodes_by_free_gpu();
  for (const std::int32_t r : extra_rack_list) {
    const auto& members = snap->racks()[static_cast<std::size_t>(r)].nodes;
    if (members.empty()) continue;
    auto with_room = index.at_least(gpu, members.front(), members.back() + 1);
    for (NodeId n = with_room.next(); n >= 0; n = with_room.next()) {
      if (node(n).rack != r || st.free(n, kDimGpu) < gpu) continue;
      if (consider(n)) return true;
    }
  }
  return false;
}

// find_node_whole or find_node_shared, keeping the node tally of a failure for the pending
// reason.
std::optional<NodeId> Scheduler::Impl::find_node(const PodInfo& p, const QueueInfo* q) {
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
std::optional<NodeId> Scheduler::Impl::find_node_whole(const PodInfo& p, const QueueInfo* q) {
  deferred.clear();
  room_used = false;
  auto n = search_whole(p, q, true);
  if (!n && room_used) {
    // A search of the extra racks' nodes with room only defers none of the others: a failure
    // searches again looking at each of them, for the node tally.
    tally = NodeTally{};
    visited = 0;
    deferred.clear();
    n = search_whole(p, q, false);
  }
  if (!n)
    for (const NodeId m : deferred)
      for (std::size_t i = 0; i < filters.size(); ++i)
        if (!filters[i]->filter(st, p, q, m)) {
          note_reject(i, p, q, m);
          break;
        }
  return n;
}

std::optional<NodeId> Scheduler::Impl::search_whole(const PodInfo& p, const QueueInfo* q,
                                                    bool by_room) {
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
  collect_extra_racks(p, ctx);
  // Large racks' nodes with room are better found through the free-GPU index than by looking at
  // each of their nodes (a cluster without nodesPerRack is one rack of every node).
  constexpr std::size_t kLargeRacks = 128;
  const std::size_t rack_nodes = extra_rack_nodes();
  if (by_room && !st.bonus_active() && gpu > 0 && rack_nodes >= kLargeRacks) {
    if (consider_room(gpu, consider)) return best;
  } else {
    expand_extra(!bonus_walk);
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
  }
  if (bonus_walk && st.walk_bonus(gpu, consider)) return best;
  if (bonus_only_extra()) return best;
  // The extra racks hold every present node: each node a walk below would reach has been a
  // candidate already (first_feasible turns it away), so the walk could change nothing.
  if (!st.bonus_active() && rack_nodes == snap->nodes_by_free_gpu().size()) return best;
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

std::int64_t Scheduler::Impl::max_weighted_score(const PodInfo& p, const Reach& reach,
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
std::optional<NodeId> Scheduler::Impl::find_node_shared(const PodInfo& p, const QueueInfo* q) {
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

// Trial placement of `pods` (all or nothing). On success the placements stay taken in the
// cycle state and are returned in `placed`; on failure everything is given back.
bool Scheduler::Impl::trial(const std::vector<PodId>& pods, const QueueInfo* q,
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

bool Scheduler::Impl::trial_core(const QueueInfo& qi,
                                 std::vector<std::pair<PodId, NodeId>>& placed) {
  if (core.empty()) return trial(core, &qi, placed);
  const ShapeId shape = pod(core.front()).shape;
  const bool uniform =
      !st.bonus_active() && pod(core.front()).gpu_share == 0 &&
      std::all_of(core.begin(), core.end(), [&](PodId p) { return pod(p).shape == shape; });
  if (!uniform) return trial(core, &qi, placed);
  const std::tuple<std::int32_t, SelectorId, ShapeId> key{st.view_epoch(), qi.selector, shape};
  if (const auto it = uniform_fail_memo.find(key);
      it != uniform_fail_memo.end() && it->second.changes == st.changes() &&
      core.size() > it->second.placed && !memo_fails(pod(core.front()), &qi)) {
    placed.clear();
    gang_nodes.clear();
    trial_size = core.size();
    why_nodes(it->second.tally, core.size(), it->second.placed);
    return false;
  }
  if (trial(core, &qi, placed)) return true;
  // trial() leaves the failed search's tally and why.placed (0 when a failure memo answered).
  if (why.placed > 0)
    uniform_fail_memo[key] = UniformFail{st.changes(), static_cast<std::size_t>(why.placed), tally};
  return false;
}

void Scheduler::Impl::rollback(std::vector<std::pair<PodId, NodeId>>& placed) {
  for (const auto& [id, n] : placed) st.take_pod(n, id, pod(id), -1);
  placed.clear();
  gang_nodes.clear();
}

void Scheduler::Impl::commit(const std::vector<std::pair<PodId, NodeId>>& placed) {
  for (const auto& [id, n] : placed) {
    const auto& p = pod(id);
    if (p.queue != kNone) st.add_queue_allocated(p.queue, p.request);
    out.bindings.push_back(
        Binding{p.key.str(), node(n).name, p.gpu_share > 0 ? st.slot_of(id) : kNone, id, n});
  }
  gang_nodes.clear();
}

bool Scheduler::Impl::quota_ok(QueueId q, const SparseRes& request) const {
  const auto& info = queue(q);
  if (!info.has_quota) return true;
  const auto& alloc = st.queue_allocated(q);
  // §8.7: allocated + request <= quota for every resource the quota names.
  for (const Dim d : info.quota_dims)
    if (at(alloc, d) + at(request, d) > at(info.quota, d)) return false;
  return true;
}

}  // namespace t9k::scheduler
