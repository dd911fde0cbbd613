// ClusterSnapshot's pods (scheduler/snapshot.hpp): their upserts and removals, bindings,
// evictions and releases; shared GPUs by slot; §8.6 nominations; the maxDuration expiry.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "scheduler/detail/snapshot.hpp"
#include "scheduler/snapshot.hpp"

namespace t9k::scheduler {

using detail::erase_value;
using detail::micros;

namespace {

// A pod's footprint on its node, without the GPU part of a share (the node counts shared GPUs
// by slot, ClusterSnapshot::share_add).
void add_on_node(DenseRes& v, const PodInfo& pod, std::int64_t sign) {
  add(v, pod.request, sign);
  if (pod.gpu_share > 0) slot(v, kDimGpu) -= sign * pod.gpu_share;
}

bool all_zero(const DenseRes& v) {
  return std::all_of(v.begin(), v.end(), [](auto x) { return x == 0; });
}

const std::string kGpuMilliName = model::kResourceGpuMilli;  // look-ups without a temporary

}  // namespace

// ---- pods -------------------------------------------------------------------------------------

void ClusterSnapshot::detach_pod(PodId p) {
  const auto& pod = pods_[static_cast<std::size_t>(p)];
  if (!pod.present) return;
  const bool holds = pod.state == PodState::Bound || pod.state == PodState::Terminating;
  if (holds && pod.node != kNone) {
    auto& node = nodes_[static_cast<std::size_t>(pod.node)];
    const bool term = pod.state == PodState::Terminating;
    set_free_index(pod.node, false);
    add_on_node(node.used, pod, -1);
    if (pod.gpu_share > 0) share_add(pod.node, pod.gpu_slot, -pod.gpu_share, term);
    set_free_index(pod.node, true);
    if (term) {
      add_on_node(node.terminating, pod, -1);
      if (all_zero(node.terminating) &&
          std::all_of(node.share_terminating.begin(), node.share_terminating.end(),
                      [](auto v) { return v == 0; }))
        terminating_nodes_.erase(pod.node);
    }
  }
  if (!pod.t9k) {
    if (pod.state == PodState::Pending) default_pending_.erase(pod.order_key(p));
    return;
  }
  if (pod.group == kNone) return;
  auto& g = groups_[static_cast<std::size_t>(pod.group)];
  dirty_groups_.push_back(pod.group);  // its counts change: PendingEntry::need, min_gpu
  QueueInfo* q = pod.queue != kNone ? &queues_[static_cast<std::size_t>(pod.queue)] : nullptr;
  if (q && holds) add(q->allocated, pod.request, -1);
  if (q && (holds || pod.state == PodState::Pending)) add(q->requested, pod.request, -1);
  if (q && q->max_duration && (pod.state == PodState::Pending || pod.state == PodState::Bound))
    q->live_pods.erase({pod.creation, pod.sequence, p});
  switch (pod.state) {
    case PodState::Pending:
      if (--g.n_pending == 0 && q && !g.finished) pending_erase(pod.queue, g.order_key(pod.group));
      break;
    case PodState::Bound:
      if (--g.n_bound == 0 && q) q->running_groups.erase(g.victim_key(pod.group));
      break;
    case PodState::Terminating:
      --g.n_terminating;
      break;
    case PodState::Succeeded:
      --g.n_succeeded;
      break;
    case PodState::Failed:
      --g.n_failed;
      break;
  }
}

void ClusterSnapshot::attach_pod(PodId p) {
  auto& pod = pods_[static_cast<std::size_t>(p)];
  if (!pod.present) return;
  const bool holds = pod.state == PodState::Bound || pod.state == PodState::Terminating;
  if (holds && pod.node != kNone) {
    auto& node = nodes_[static_cast<std::size_t>(pod.node)];
    const bool term = pod.state == PodState::Terminating;
    if (pod.gpu_share > 0) {
      if (node.share_used.empty()) {  // bound to a node not known yet, or without GPUs
        node.share_used.resize(1, 0);
        node.share_terminating.resize(1, 0);
      }
      if (pod.gpu_slot < 0 || static_cast<std::size_t>(pod.gpu_slot) >= node.share_used.size()) {
        pod.gpu_slot = best_slot(pod.node, pod.gpu_share);
        if (pod.gpu_slot == kNone) {
          // Over-committed (a binding the scheduler would not make): the least used slot; the
          // world's invariants report it.
          const auto it = std::min_element(node.share_used.begin(), node.share_used.end());
          pod.gpu_slot = static_cast<std::int32_t>(it - node.share_used.begin());
        }
      }
    }
    set_free_index(pod.node, false);
    add_on_node(node.used, pod, 1);
    if (pod.gpu_share > 0) share_add(pod.node, pod.gpu_slot, pod.gpu_share, term);
    set_free_index(pod.node, true);
    if (term) {
      add_on_node(node.terminating, pod, 1);
      terminating_nodes_.insert(pod.node);
    }
  }
  if (!pod.t9k) {
    if (pod.state == PodState::Pending) default_pending_.insert(pod.order_key(p));
    return;
  }
  if (pod.group == kNone) return;
  auto& g = groups_[static_cast<std::size_t>(pod.group)];
  dirty_groups_.push_back(pod.group);  // its counts change: PendingEntry::need, min_gpu
  QueueInfo* q = pod.queue != kNone ? &queues_[static_cast<std::size_t>(pod.queue)] : nullptr;
  if (q && holds) add(q->allocated, pod.request);
  if (q && (holds || pod.state == PodState::Pending)) add(q->requested, pod.request);
  if (q && q->max_duration && (pod.state == PodState::Pending || pod.state == PodState::Bound))
    q->live_pods.insert({pod.creation, pod.sequence, p});
  switch (pod.state) {
    case PodState::Pending:
      if (g.n_pending++ == 0 && q && !g.finished) pending_insert(pod.queue, g.order_key(pod.group));
      break;
    case PodState::Bound:
      if (g.n_bound++ == 0 && q) q->running_groups.insert(g.victim_key(pod.group));
      break;
    case PodState::Terminating:
      ++g.n_terminating;
      break;
    case PodState::Succeeded:
      ++g.n_succeeded;
      break;
    case PodState::Failed:
      ++g.n_failed;
      break;
  }
}

PodId ClusterSnapshot::upsert_pod(const model::Pod& pod, GroupId group_hint) {
  return upsert_pod(pod, model::Text(object_key(pod.metadata)), group_hint);
}

PodId ClusterSnapshot::upsert_pod(const model::Pod& pod, const model::Text& key,
                                  GroupId group_hint) {
  PodId p;
  if (const auto filed = pod_ids_.find(key)) {
    p = *filed;
    detach_pod(p);
  } else {
    p = static_cast<PodId>(pods_.acquire());       // a default record
    pods_[static_cast<std::size_t>(p)].key = key;  // the index reads it there (a Text)
    pod_ids_.insert(p);
  }
  auto& info = pods_[static_cast<std::size_t>(p)];
  const GroupId old_group = info.group;
  info.present = true;
  info.t9k = pod.scheduler_name == model::kT9kSchedulerName;
  info.priority = pod.priority;
  info.creation = micros(pod.metadata.creation_timestamp);
  info.sequence = pod.metadata.creation_sequence;
  const bool was_shared = info.gpu_share > 0;
  const auto share = pod.requests->find(kGpuMilliName);
  if (share == pod.requests->end()) {
    info.request = resources_.sparse(*pod.requests);
    info.gpu_share = 0;
  } else {
    // A share of g milli of one GPU: g milli-GPU in the GPU dimension (queues and quota see a
    // fraction of a GPU); the node side counts it by slot.
    model::ResourceList rest = *pod.requests;
    rest.erase(kGpuMilliName);
    info.gpu_share = static_cast<std::int32_t>(
        std::clamp<std::int64_t>(share->second.units_ceil(), 0, model::kGpuMilliPerGpu));
    info.request = resources_.sparse(rest);
    if (info.gpu_share > 0) {
      DenseRes d = to_dense(info.request);
      slot(d, kDimGpu) += info.gpu_share;
      info.request.clear();
      for (std::size_t i = 0; i < d.size(); ++i)
        if (d[i] != 0) info.request.emplace_back(static_cast<Dim>(i), d[i]);
    }
  }
  shared_pods_ += (info.gpu_share > 0 ? 1 : 0) - (was_shared ? 1 : 0);
  info.selector = pod.node_selector.empty()
                      ? kNone
                      : intern_selector(model::LabelSelector{pod.node_selector, {}});
  info.shape = intern_shape(info.request, info.selector);
  info.role = pod.role;
  const NodeId old_node = info.node;
  info.node = pod.node_name.empty() ? kNone : node_id(pod.node_name);
  // The slot the pod holds: as recorded on the pod, else kept while it stays on the same node
  // (an update that does not carry it must not move the share), else chosen at attach.
  if (info.gpu_share == 0 || info.node == kNone)
    info.gpu_slot = kNone;
  else if (pod.gpu_index >= 0)
    info.gpu_slot = pod.gpu_index;
  else if (info.node != old_node)
    info.gpu_slot = kNone;
  if (pod.phase == model::PodPhase::Succeeded)
    info.state = PodState::Succeeded;
  else if (pod.phase == model::PodPhase::Failed)
    info.state = PodState::Failed;
  else if (pod.deletion_timestamp)
    info.state = info.node != kNone ? PodState::Terminating : PodState::Failed;
  else
    info.state = info.node != kNone ? PodState::Bound : PodState::Pending;

  GroupId g = kNone;
  if (info.t9k) {
    if (pod.pod_group.empty()) {
      // §8.5 [INFERRED]: a bare pod with a queue label is a one-member group of priority 0.
      g = group_id(std::string("pod:").append(info.key));
      auto& gi = groups_[static_cast<std::size_t>(g)];
      if (!gi.present) {
        gi.present = true;
        gi.implicit = true;
        gi.queue =
            queue_id(pod.queue.empty() ? std::string_view(model::kDefaultQueue) : pod.queue.view());
        gi.min_member = 1;
        gi.creation = info.creation;
        gi.sequence = info.sequence;
        attach_group(g);
      }
    } else {
      g = group_of_key(pod.metadata.namespace_, pod.pod_group, group_hint);
    }
  }
  if (old_group != kNone && old_group != g) {
    erase_value(groups_[static_cast<std::size_t>(old_group)].pods, p);
    maybe_drop_group(old_group);
  }
  info.group = g;
  if (g != kNone) {
    auto& members = groups_[static_cast<std::size_t>(g)].pods;
    if (std::find(members.begin(), members.end(), p) == members.end()) members.push_back(p);
    info.queue = groups_[static_cast<std::size_t>(g)].queue;
  } else {
    info.queue = kNone;
  }
  attach_pod(p);
  settle_nomination(g);
  flush_pending_entries();
  return p;
}

void ClusterSnapshot::remove_pod(const std::string& key) {
  const auto filed = pod_ids_.find(key);
  if (!filed) return;
  const PodId p = *filed;
  detach_pod(p);
  const GroupId g = pods_[static_cast<std::size_t>(p)].group;
  if (g != kNone) {
    erase_value(groups_[static_cast<std::size_t>(g)].pods, p);
    maybe_drop_group(g);
  }
  if (pods_[static_cast<std::size_t>(p)].gpu_share > 0) --shared_pods_;
  pod_ids_.erase(p);  // before its record, which holds the key, is cleared
  // Reset and kept for reuse; maybe_drop_group settled the group's reservations.
  pods_.release(static_cast<std::uint32_t>(p));
  flush_pending_entries();
}

void ClusterSnapshot::bind(const std::string& pod_key, const std::string& node,
                           std::int32_t gpu_slot) {
  bind_ids(pod_ref(pod_key), node_id(node), gpu_slot);
}

void ClusterSnapshot::bind(PodId pod, NodeId node, const std::string& pod_key,
                           const std::string& node_name, std::int32_t gpu_slot) {
  const bool same = pod >= 0 && static_cast<std::size_t>(pod) < pods_.size() &&
                    pods_[static_cast<std::size_t>(pod)].present &&
                    pods_[static_cast<std::size_t>(pod)].key == pod_key && node >= 0 &&
                    static_cast<std::size_t>(node) < nodes_.size() &&
                    nodes_[static_cast<std::size_t>(node)].name == node_name;
  if (same)
    bind_ids(pod, node, gpu_slot);
  else
    bind(pod_key, node_name, gpu_slot);
}

void ClusterSnapshot::bind_ids(PodId p, NodeId n, std::int32_t gpu_slot) {
  detach_pod(p);
  auto& info = pods_[static_cast<std::size_t>(p)];
  info.node = n;
  info.gpu_slot = info.gpu_share > 0 ? gpu_slot : kNone;
  info.state = PodState::Bound;
  attach_pod(p);
  settle_nomination(info.group);
  flush_pending_entries();
}

void ClusterSnapshot::evict(const std::string& pod_key, PodId hint) {
  const PodId p = pod_ref(pod_key, hint);
  detach_pod(p);
  auto& info = pods_[static_cast<std::size_t>(p)];
  info.state = info.node != kNone ? PodState::Terminating : PodState::Failed;
  attach_pod(p);
  settle_nomination(info.group);
  flush_pending_entries();
}

void ClusterSnapshot::release(const std::string& pod_key, bool succeeded, PodId hint) {
  const PodId p = pod_ref(pod_key, hint);
  detach_pod(p);
  pods_[static_cast<std::size_t>(p)].state = succeeded ? PodState::Succeeded : PodState::Failed;
  attach_pod(p);
  settle_nomination(pods_[static_cast<std::size_t>(p)].group);
  flush_pending_entries();
}

// ---- shared GPUs ------------------------------------------------------------------------------

void ClusterSnapshot::share_add(NodeId n, std::int32_t slot_index, std::int32_t g,
                                bool terminating) {
  auto& node = nodes_[static_cast<std::size_t>(n)];
  auto& used = node.share_used[static_cast<std::size_t>(slot_index)];
  const std::int32_t before = used;
  const auto full = static_cast<std::int32_t>(model::kGpuMilliPerGpu);
  if (before > 0 && before < full) share_rooms_.erase({full - before, n, slot_index});
  used += g;
  if (used > 0 && used < full) share_rooms_.insert({full - used, n, slot_index});
  if (before <= 0 && used > 0) {
    slot(node.used, kDimGpu) += model::kGpuMilliPerGpu;
    ++node.shared_slots;
  } else if (before > 0 && used <= 0) {
    slot(node.used, kDimGpu) -= model::kGpuMilliPerGpu;
    --node.shared_slots;
  }
  if (terminating) node.share_terminating[static_cast<std::size_t>(slot_index)] += g;
}

SlotFit best_fit_slot(const std::vector<std::int32_t>& used, const std::vector<std::int32_t>& back,
                      std::int32_t g, bool rooms, bool whole_free) {
  const auto full = static_cast<std::int32_t>(model::kGpuMilliPerGpu);
  std::int32_t best = kNone, best_room = full + 1, first_unused = kNone;
  for (std::size_t i = 0; i < used.size(); ++i) {
    const std::int32_t u = used[i] - (back.empty() ? 0 : back[i]);
    if (u <= 0) {
      if (first_unused == kNone) first_unused = static_cast<std::int32_t>(i);
    } else if (rooms && full - u >= g && full - u < best_room) {
      best = static_cast<std::int32_t>(i);
      best_room = full - u;
    }
  }
  if (best != kNone) return {best, best_room - g};
  if (first_unused != kNone && whole_free) return {first_unused, full - g};
  return {};
}

std::int32_t ClusterSnapshot::best_slot(NodeId n, std::int32_t g) const {
  const auto& node = nodes_[static_cast<std::size_t>(n)];
  return best_fit_slot(node.share_used, {}, g, true, node.free(kDimGpu) >= model::kGpuMilliPerGpu)
      .slot;
}

// ---- nomination (§8.6) ------------------------------------------------------------------------

void ClusterSnapshot::nominate(const std::string& group_key,
                               const std::vector<NodeReservation>& plan) {
  const auto found = group_ids_.find(group_key);
  if (!found) return;
  const GroupId g = *found;
  auto& nominated = groups_[static_cast<std::size_t>(g)].nominated;
  auto& res = nominated.edit();
  res.clear();
  for (const auto& r : plan) {
    const auto n = find_node(r.node);
    if (!n) continue;
    SparseRes amount = resources_.sparse(r.resources);
    if (amount.empty()) continue;
    // One entry per node, in plan order: a plan naming a node twice adds up.
    const auto same =
        std::find_if(res.begin(), res.end(), [&](const auto& e) { return e.first == *n; });
    if (same == res.end()) {
      res.emplace_back(*n, std::move(amount));
    } else {
      DenseRes sum = to_dense(same->second);
      add(sum, amount);
      same->second.clear();
      for (std::size_t d = 0; d < sum.size(); ++d)
        if (sum[d] != 0) same->second.emplace_back(static_cast<Dim>(d), sum[d]);
    }
  }
  if (res.empty()) {
    nominated.clear();  // its block too
    nominated_.erase(g);
  } else {
    nominated_.insert(g);
  }
  settle_nomination(g);
  flush_pending_entries();
}

void ClusterSnapshot::settle_nomination(GroupId g) {
  if (g == kNone) return;
  auto& info = groups_[static_cast<std::size_t>(g)];
  if (info.nominated.empty()) return;
  // The reservation is for pods that still wait: none left, or the gang's minMember met (the
  // elastic surplus never preempts, §11 Q8), or no PodGroup any more ⇒ it ends.
  if (info.present && info.queued() && info.n_bound + info.n_succeeded < info.min_member) return;
  info.nominated.clear();
  nominated_.erase(g);
}

std::optional<model::SimTime> ClusterSnapshot::next_max_duration_expiry() const {
  std::optional<model::SimTime> best;
  for (const QueueId q : queues_with_max_duration_) {
    const auto& info = queues_[static_cast<std::size_t>(q)];
    if (info.live_pods.empty()) continue;
    const model::SimTime t{model::SimDuration{std::get<0>(*info.live_pods.begin())} +
                           *info.max_duration};
    if (!best || t < *best) best = t;
  }
  return best;
}

}  // namespace t9k::scheduler
