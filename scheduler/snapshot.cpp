#include "scheduler/snapshot.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "scheduler/detail/snapshot.hpp"

namespace t9k::scheduler {

using detail::erase_value;
using detail::micros;

namespace {

std::string selector_key(const model::LabelSelector& s) {
  std::string k;
  // Appends only: GCC 12 reports a false -Wrestrict on "literal" + std::string (PR 105329).
  for (const auto& [a, b] : s.match_labels)
    k.append("L").append(a).append("\x1f").append(b).append("\x1e");
  for (const auto& e : s.match_expressions) {
    k.append("E").append(e.key).append("\x1f").append(model::to_string(e.op));
    for (const auto& v : e.values) k.append("\x1f").append(v);
    k.append("\x1e");
  }
  return k;
}

}  // namespace

ClusterSnapshot::ClusterSnapshot() = default;

// ---- ids --------------------------------------------------------------------------------------

NodeId ClusterSnapshot::node_id(std::string_view name) {
  const auto it = node_ids_.find(name);
  if (it != node_ids_.end()) return it->second;
  const NodeId id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(NodeInfo{});
  nodes_.back().name = name;
  for (auto& s : selectors_) s.matches.push_back(0);
  node_ids_.emplace(std::string(name), id);
  return id;
}

QueueId ClusterSnapshot::queue_id(std::string_view name) {
  const auto it = queue_ids_.find(name);
  if (it != queue_ids_.end()) return it->second;
  const QueueId id = static_cast<QueueId>(queues_.size());
  queues_.push_back(QueueInfo{});
  queues_.back().name = name;
  queue_ids_.emplace(std::string(name), id);
  return id;
}

GroupId ClusterSnapshot::group_of_key(std::string_view namespace_, std::string_view name,
                                      GroupId hint) {
  if (const GroupInfo* g = hinted_group(hint); g && model::is_key(g->key, namespace_, name))
    return hint;
  return group_id(object_key(namespace_, name));
}

GroupId ClusterSnapshot::group_id(std::string_view key) {
  if (const auto g = group_ids_.find(key)) return *g;
  const auto id = static_cast<GroupId>(groups_.acquire());  // a default record
  groups_[static_cast<std::size_t>(id)].key = key;          // the index reads it there (a Text)
  group_ids_.insert(id);
  return id;
}

SelectorId ClusterSnapshot::intern_selector(const model::LabelSelector& sel) {
  if (sel.empty()) return kNone;  // an empty selector selects every node
  const std::string k = selector_key(sel);
  const auto it = selector_ids_.find(k);
  if (it != selector_ids_.end()) return it->second;
  const SelectorId id = static_cast<SelectorId>(selectors_.size());
  Selector s{sel, std::vector<char>(nodes_.size(), 0)};
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    s.matches[n] = sel.matches(nodes_[n].labels) ? 1 : 0;
  selectors_.push_back(std::move(s));
  selector_ids_.emplace(k, id);
  return id;
}

ShapeId ClusterSnapshot::intern_shape(const SparseRes& request, SelectorId sel) {
  // Keyed by value (a pod's creation used to format a string key for this look-up).
  auto key = std::make_pair(sel, request);
  const auto it = shapes_.find(key);
  if (it != shapes_.end()) return it->second;
  const ShapeId id = static_cast<ShapeId>(shape_keys_.size());
  shape_keys_.emplace_back(request, sel);
  shapes_.emplace(std::move(key), id);
  return id;
}

void ClusterSnapshot::refresh_selectors_for(NodeId n) {
  const auto& labels = nodes_[static_cast<std::size_t>(n)].labels;
  for (auto& s : selectors_)
    s.matches[static_cast<std::size_t>(n)] = s.selector.matches(labels) ? 1 : 0;
}

void ClusterSnapshot::set_free_index(NodeId n, bool add_it) {
  const auto& node = nodes_[static_cast<std::size_t>(n)];
  if (!node.present) return;
  if (add_it)
    by_free_gpu_.insert(node.free(kDimGpu), n, node.free(kDimCpu));
  else
    by_free_gpu_.erase(node.free(kDimGpu), n, node.free(kDimCpu));
  // Called in pairs around every change of a node's used, allocatable or schedulability.
  if (node.schedulable()) {
    const std::size_t dims = std::max(node.allocatable.size(), node.used.size());
    for (std::size_t d = 0; d < dims; ++d)
      slot(schedulable_free_, static_cast<Dim>(d)) +=
          (add_it ? 1 : -1) * node.free(static_cast<Dim>(d));
  }
}

void ClusterSnapshot::pending_insert(QueueId q, const GroupOrderKey& key) {
  auto& idx = queues_[static_cast<std::size_t>(q)].pending_index;
  const auto it =
      std::lower_bound(idx.begin(), idx.end(), key,
                       [](const PendingEntry& e, const GroupOrderKey& k) { return e.key < k; });
  auto& info = queues_[static_cast<std::size_t>(q)];
  if (it != idx.end() && it->key == key) {
    if (it->dead)
      --info.pending_dead;
    else if (it->passable)
      info.departed.push_back(*it);  // its catch-up (lazy_waits.cpp)
    *it = PendingEntry{.key = key};  // a new wait: nothing reported in it yet
    touch(info, static_cast<std::size_t>(it - idx.begin()));
  } else if (it == idx.end()) {
    idx.push_back(PendingEntry{.key = key});
    touch(info, idx.size() - 1);
  } else {
    idx.insert(it, PendingEntry{.key = key});
    info.relaid = true;
  }
  dirty_groups_.push_back(group_of(key));
}

void ClusterSnapshot::touch(QueueInfo& q, std::size_t pos) {
  if (q.relaid) return;  // the tree is built again anyway
  if (q.touched.size() >= q.pending_index.size()) {
    q.relaid = true;
    q.touched.clear();
    return;
  }
  q.touched.push_back(static_cast<std::uint32_t>(pos));
}

bool ClusterSnapshot::set_lazy(GroupId g, std::uint64_t sequence, bool lazy) {
  if (g < 0 || static_cast<std::size_t>(g) >= groups_.size()) return false;
  const auto& info = groups_[static_cast<std::size_t>(g)];
  if (info.queue == kNone || info.sequence != sequence) return false;
  auto& q = queues_[static_cast<std::size_t>(info.queue)];
  auto& idx = q.pending_index;
  const GroupOrderKey key = info.order_key(g);
  const auto it =
      std::lower_bound(idx.begin(), idx.end(), key,
                       [](const PendingEntry& e, const GroupOrderKey& k) { return e.key < k; });
  if (it == idx.end() || it->key != key || it->dead) return false;
  if (it->lazy != lazy) {
    it->lazy = lazy;
    touch(q, static_cast<std::size_t>(it - idx.begin()));
  }
  return lazy;
}

void ClusterSnapshot::pending_erase(QueueId q, const GroupOrderKey& key) {
  auto& info = queues_[static_cast<std::size_t>(q)];
  auto& idx = info.pending_index;
  const auto it =
      std::lower_bound(idx.begin(), idx.end(), key,
                       [](const PendingEntry& e, const GroupOrderKey& k) { return e.key < k; });
  if (it == idx.end() || it->key != key || it->dead) return;
  if (it->passable) {  // its catch-up (lazy_waits.cpp), once
    info.departed.push_back(*it);
    it->passable = false;
  }
  it->dead = true;
  touch(info, static_cast<std::size_t>(it - idx.begin()));
  // Compacted once a third is dead: amortised O(1) per erase, and a cycle's walk stays within
  // 1.5 times the live entries.
  if (++info.pending_dead * 3 > idx.size()) {
    std::erase_if(idx, [](const PendingEntry& e) { return e.dead; });
    info.pending_dead = 0;
    info.relaid = true;
    info.touched.clear();
  }
}

// Of a group with nothing bound or succeeded: each role has its minimum among the pending pods
// (the gang permit, §8.3) and those minimums add up to no more than `need` (so §8.4's core is
// `need` pods).
bool ClusterSnapshot::plain_core(const GroupInfo& g, std::int32_t need) const {
  std::int64_t minimums = 0;
  for (const auto& role : g.roles) {
    minimums += role.min_member;
    std::int32_t n = 0;
    for (const PodId p : g.pods) {
      const auto& pod = pods_[static_cast<std::size_t>(p)];
      if (pod.state == PodState::Pending && pod.role == role.name && ++n >= role.min_member) break;
    }
    if (n < role.min_member) return false;
  }
  return minimums <= need;
}

void ClusterSnapshot::flush_pending_entries() {
  ++version_;
  for (const GroupId g : dirty_groups_) {
    const auto& info = groups_[static_cast<std::size_t>(g)];
    if (info.queue == kNone || info.n_pending == 0) continue;
    auto& idx = queues_[static_cast<std::size_t>(info.queue)].pending_index;
    const GroupOrderKey key = info.order_key(g);
    const auto it =
        std::lower_bound(idx.begin(), idx.end(), key,
                         [](const PendingEntry& e, const GroupOrderKey& k) { return e.key < k; });
    if (it == idx.end() || it->key != key || it->dead) continue;
    touch(queues_[static_cast<std::size_t>(info.queue)],
          static_cast<std::size_t>(it - idx.begin()));
    std::int64_t min_gpu = std::numeric_limits<std::int64_t>::max();
    ShapeId shape = kNone;
    bool uniform = true;
    for (const PodId p : info.pods) {
      const auto& pod = pods_[static_cast<std::size_t>(p)];
      if (pod.state != PodState::Pending) continue;
      if (!pod.present || !pod.t9k) {
        uniform = false;  // not a pod the scheduler places as this group's: no shortcut
        continue;
      }
      // A share may fit in a used GPU's room even when no GPU is free: it bounds nothing.
      min_gpu = std::min(min_gpu, pod.gpu_share > 0 ? 0 : at(pod.request, kDimGpu));
      uniform = uniform && pod.gpu_share == 0 && (shape == kNone || shape == pod.shape);
      shape = pod.shape;
    }
    it->min_gpu = min_gpu;
    it->need = std::max<std::int32_t>(0, info.min_member - info.n_bound - info.n_succeeded);
    it->running = info.n_bound + info.n_succeeded > 0;
    it->pending_pods = info.n_pending;
    it->core_shape = uniform && !it->running && it->need > 0 && info.n_pending >= it->need &&
                             plain_core(info, it->need)
                         ? shape
                         : kNone;
  }
  dirty_groups_.clear();
}

std::optional<NodeId> ClusterSnapshot::find_node(const std::string& name) const {
  const auto it = node_ids_.find(name);
  if (it == node_ids_.end() || !nodes_[static_cast<std::size_t>(it->second)].present)
    return std::nullopt;
  return it->second;
}
std::optional<QueueId> ClusterSnapshot::find_queue(const std::string& name) const {
  const auto it = queue_ids_.find(name);
  if (it == queue_ids_.end() || !queues_[static_cast<std::size_t>(it->second)].present)
    return std::nullopt;
  return it->second;
}
std::optional<GroupId> ClusterSnapshot::find_group(const std::string& key) const {
  const auto g = group_ids_.find(key);
  if (!g || !groups_[static_cast<std::size_t>(*g)].present) return std::nullopt;
  return g;
}
std::optional<PodId> ClusterSnapshot::find_pod(const std::string& key) const {
  return pod_ids_.find(key);
}

PodId ClusterSnapshot::pod_ref(const std::string& key, PodId hint) const {
  if (const PodInfo* info = hinted_pod(hint); info && info->key == key) return hint;
  const auto p = pod_ids_.find(key);
  if (!p) throw std::out_of_range(std::string("snapshot: unknown pod '").append(key).append("'"));
  return *p;
}

// ---- nodes ------------------------------------------------------------------------------------

void ClusterSnapshot::upsert_node(const model::Node& node) {
  const NodeId n = node_id(node.metadata.name);
  auto& info = nodes_[static_cast<std::size_t>(n)];
  if (info.present) {
    set_free_index(n, false);
    add(capacity_, info.allocatable, -1);
  }
  info.labels = node.metadata.labels;
  info.ready = node.ready;
  info.unschedulable = node.unschedulable;
  info.allocatable = resources_.dense(node.allocatable.empty() ? node.capacity : node.allocatable);
  // Slots only grow: a GPU lost to a fault lowers allocatable, and shares already on a slot
  // above the new count stay where they are until they end.
  const auto gpus = static_cast<std::size_t>(
      std::max<std::int64_t>(0, at(info.allocatable, kDimGpu) / model::kGpuMilliPerGpu));
  if (info.share_used.size() < gpus) {
    info.share_used.resize(gpus, 0);
    info.share_terminating.resize(gpus, 0);
  }
  info.vertex = topology_.add_node(node);
  info.rack_vertex = *topology_.parent(info.vertex);
  info.switch_vertex = *topology_.parent(info.rack_vertex);
  if (!info.present) {
    const std::string rack = *topology_.rack_of(info.name);
    auto [it, inserted] = rack_ids_.emplace(rack, static_cast<std::int32_t>(racks_.size()));
    if (inserted) racks_.push_back(Rack{rack, {}});
    info.rack = it->second;
    auto& members = racks_[static_cast<std::size_t>(info.rack)].nodes;
    members.insert(std::lower_bound(members.begin(), members.end(), n), n);
  }
  info.present = true;
  add(capacity_, info.allocatable);
  max_gpu_allocatable_ = std::max(max_gpu_allocatable_, at(info.allocatable, kDimGpu));
  max_cpu_allocatable_ = std::max(max_cpu_allocatable_, at(info.allocatable, kDimCpu));
  if (at(info.allocatable, kDimCpu) <= 0) some_node_without_cpu_ = true;
  set_free_index(n, true);
  refresh_selectors_for(n);
  flush_pending_entries();
}

void ClusterSnapshot::remove_node(const std::string& name) {
  const auto it = node_ids_.find(name);
  if (it == node_ids_.end()) return;
  const NodeId n = it->second;
  auto& info = nodes_[static_cast<std::size_t>(n)];
  if (!info.present) return;
  set_free_index(n, false);
  add(capacity_, info.allocatable, -1);
  erase_value(racks_[static_cast<std::size_t>(info.rack)].nodes, n);
  info.present = false;
  info.rack = kNone;
  // Reservations on a node that is gone can never be used.
  for (auto it = nominated_.begin(); it != nominated_.end();) {
    auto& nominated = groups_[static_cast<std::size_t>(*it)].nominated;
    auto& res = nominated.edit();  // a group in nominated_ holds some
    res.erase(std::remove_if(res.begin(), res.end(), [n](const auto& r) { return r.first == n; }),
              res.end());
    if (res.empty()) {
      nominated.clear();  // its block too
      it = nominated_.erase(it);
    } else {
      ++it;
    }
  }
  flush_pending_entries();
}

// ---- queues -----------------------------------------------------------------------------------

void ClusterSnapshot::upsert_queue(const model::Queue& queue) {
  const QueueId q = queue_id(queue.metadata.name);
  auto& info = queues_[static_cast<std::size_t>(q)];
  if (info.present) queues_by_priority_.erase({-info.priority, q});
  info.present = true;
  info.priority = queue.spec.priority;
  info.preemptible = queue.spec.is_preemptible();
  info.closed = queue.spec.closed;
  const bool kept = info.max_duration.has_value();
  info.max_duration = queue.spec.max_duration;
  if (!info.max_duration) {
    info.live_pods.clear();
  } else if (!kept) {
    for (PodId p = 0; p < static_cast<PodId>(pods_.size()); ++p) {
      const auto& pod = pods_[static_cast<std::size_t>(p)];
      if (pod.present && pod.t9k && pod.group != kNone && pod.queue == q &&
          (pod.state == PodState::Pending || pod.state == PodState::Bound))
        info.live_pods.insert({pod.creation, pod.sequence, p});
    }
  }
  info.has_quota = queue.spec.quota.has_value();
  info.quota.clear();
  info.quota_dims.clear();
  if (info.has_quota) {
    for (const auto& [name, qty] : *queue.spec.quota) {
      const Dim d = resources_.dim(name);
      slot(info.quota, d) = resources_.amount(d, qty);
      info.quota_dims.push_back(d);
    }
    std::sort(info.quota_dims.begin(), info.quota_dims.end());
  }
  info.selector = queue.spec.node_selector ? intern_selector(*queue.spec.node_selector) : kNone;
  queues_by_priority_.insert({-info.priority, q});
  if (info.max_duration)
    queues_with_max_duration_.insert(q);
  else
    queues_with_max_duration_.erase(q);
  flush_pending_entries();
}

void ClusterSnapshot::remove_queue(const std::string& name) {
  const auto it = queue_ids_.find(name);
  if (it == queue_ids_.end()) return;
  auto& info = queues_[static_cast<std::size_t>(it->second)];
  if (!info.present) return;
  queues_by_priority_.erase({-info.priority, it->second});
  queues_with_max_duration_.erase(it->second);
  info.present = false;  // its groups wait until a queue of that name exists again
  flush_pending_entries();
}

// ---- groups -----------------------------------------------------------------------------------

void ClusterSnapshot::detach_group(GroupId g) {
  auto& info = groups_[static_cast<std::size_t>(g)];
  if (info.queue == kNone) return;
  auto& q = queues_[static_cast<std::size_t>(info.queue)];
  if (info.queued()) pending_erase(info.queue, info.order_key(g));
  if (info.n_bound > 0) q.running_groups.erase(info.victim_key(g));
  if (info.present) --q.groups;
}

void ClusterSnapshot::attach_group(GroupId g) {
  auto& info = groups_[static_cast<std::size_t>(g)];
  if (info.queue == kNone) return;
  auto& q = queues_[static_cast<std::size_t>(info.queue)];
  if (info.queued()) pending_insert(info.queue, info.order_key(g));
  if (info.n_bound > 0) q.running_groups.insert(info.victim_key(g));
  if (info.present) ++q.groups;
}

GroupId ClusterSnapshot::upsert_pod_group(const model::PodGroup& group, GroupId hint) {
  const GroupId g = group_of_key(group.metadata.namespace_, group.metadata.name, hint);
  auto& info = groups_[static_cast<std::size_t>(g)];
  const auto members = info.pods;  // a copy: removing a pod edits info.pods
  for (const PodId p : members) detach_pod(p);
  detach_group(g);
  info.present = true;
  info.implicit = false;
  info.queue = queue_id(group.spec.queue.empty() ? model::kDefaultQueue : group.spec.queue);
  info.priority = group.spec.priority;
  info.min_member = std::max(group.spec.min_member, 0);
  info.roles.clear();
  for (const auto& r : group.spec.roles) info.roles.push_back(RoleMin{r.name, r.min_member});
  info.creation = micros(group.metadata.creation_timestamp);
  info.sequence = group.metadata.creation_sequence;
  info.finished = group.spec.finished;
  attach_group(g);
  for (const PodId p : members) {
    pods_[static_cast<std::size_t>(p)].queue = info.queue;
    attach_pod(p);
  }
  settle_nomination(g);  // a lowered minMember may already be met
  flush_pending_entries();
  return g;
}

void ClusterSnapshot::maybe_drop_group(GroupId g) {
  auto& info = groups_[static_cast<std::size_t>(g)];
  if ((info.present && !info.implicit) || !info.pods.empty()) {
    settle_nomination(g);
    return;
  }
  nominated_.erase(g);
  detach_group(g);
  group_ids_.erase(g);
  groups_.release(static_cast<std::uint32_t>(g));
}

void ClusterSnapshot::remove_pod_group(const std::string& key, GroupId hint) {
  GroupId g = hint;
  if (const GroupInfo* info = hinted_group(hint); !info || info->key != key) {
    const auto found = group_ids_.find(key);
    if (!found) return;
    g = *found;
  }
  auto& info = groups_[static_cast<std::size_t>(g)];
  const auto members = info.pods;  // a copy: removing a pod edits info.pods
  for (const PodId p : members) detach_pod(p);
  detach_group(g);
  info.present = false;
  info.queue = kNone;
  for (const PodId p : members) {
    pods_[static_cast<std::size_t>(p)].queue = kNone;
    attach_pod(p);
  }
  maybe_drop_group(g);
  flush_pending_entries();
}

}  // namespace t9k::scheduler
