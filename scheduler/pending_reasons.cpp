// Why a group or pod waits (docs/scheduler.md "Why is this job pending?"): node tallies, quota, and
// reports only when the reason changes.
#include "scheduler/detail/cycle.hpp"

#include <algorithm>
#include <limits>

namespace t9k::scheduler {

using namespace detail;

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
  auto quantity = [&](std::int64_t amount) {
    return snap.resources().quantity(r.quota_dim, amount).to_string();
  };
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

// The first filter that turns node n away; a node short of room that a later filter would
// exclude anyway (readiness, selectors) counts as excluded: more room would not help there.
void Scheduler::Impl::note_reject(std::size_t filter, const PodInfo& p, const QueueInfo* q,
                                  NodeId n) {
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
void Scheduler::Impl::close_tally() {
  tally.nodes = static_cast<std::int32_t>(snap->nodes_by_free_gpu().size());
  tally.gpu += std::max<std::int32_t>(0, tally.nodes - visited);
}

PendingCause Scheduler::Impl::cause_of(const NodeTally& t) {
  const bool room = t.gpu + t.cpu + t.memory + t.extended > 0 || t.nodes == 0;
  return room || t.other > 0 ? PendingCause::Capacity : PendingCause::Constraints;
}

void Scheduler::Impl::why_nodes(const NodeTally& t, std::size_t pods, std::size_t placed) {
  why = PendingReason{};
  why.cause = cause_of(t);
  why.nodes = t;
  why.pods = static_cast<std::int32_t>(pods);
  why.placed = static_cast<std::int32_t>(placed);
}

// The first resource the quota refuses (quota_ok failed for this request).
void Scheduler::Impl::why_quota(QueueId q, const SparseRes& request) {
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

void Scheduler::Impl::report_group(const PendingEntry& e, const PendingReason& r) {
  report_group(e, reason_hash(r), [&] { return r; });
}

// Default-scheduler pods: by PodId, with the pod's creation sequence (ids are reused).
void Scheduler::Impl::report_pod(PodId id, std::uint64_t sequence, const PendingReason& r) {
  if (last_by_pod.size() <= static_cast<std::size_t>(id))
    last_by_pod.resize(static_cast<std::size_t>(id) + 1);
  LastReason& last = last_by_pod[static_cast<std::size_t>(id)];
  if (last.sequence != sequence) last = LastReason{0, sequence};
  report(last.hash, reason_hash(r), kNone, id, sequence, [&] { return r; });
}

}  // namespace t9k::scheduler
