// ClusterSnapshot: the scheduler's read-only view of the cluster, kept up to date incrementally
// by the world.
//
// THE CONTRACT
//  * The world owns one ClusterSnapshot and calls its update methods as objects change:
//      upsert_node / remove_node, upsert_queue / remove_queue,
//      upsert_pod_group / remove_pod_group, upsert_pod / remove_pod,
//    and, when it applies the scheduler's decisions or the kubelet finishes a pod:
//      bind(pod, node)          a Binding was applied (the pod now holds the node's resources),
//      evict(pod)               an Eviction was applied; the pod is terminating and still holds
//                               its resources until remove_pod (or release) is called,
//      release(pod, succeeded)  the pod terminated (Succeeded / Failed) and frees its resources,
//      remove_pod(pod)          the pod object is gone,
//      nominate(group, plan)    right after applying an Eviction with reason Preemption:
//                               nominate(e.preemptor, e.reservations) (see below).
//    upsert_pod with the full model::Pod is always allowed too: the state is derived from the
//    pod (phase, node_name, deletion_timestamp), so bind/evict/release are shortcuts.
//  * Nomination (§8.6, kube-scheduler's nominatedNodeName): a PodGroup that preempted has its
//    planned placement reserved, per node, until it is placed. Lower-ranked work (a lower queue
//    priority, an equal queue priority in another queue, a later position in the same queue's
//    §8.5 order, every default-scheduler pod) counts the reservation as used; the nominated group
//    and work that outranks it do not. nominate() replaces the group's whole plan (idempotent:
//    calling it once per eviction of the same preemptor is fine). The snapshot drops a group's
//    reservations by itself when the group no longer needs them: it has no pending pod left, or
//    its bound + succeeded pods reach minMember (the surplus never preempts, §11 Q8), or the
//    PodGroup is removed; a removed node loses the reservations on it. No time-based expiry: the
//    scheduler re-validates every reservation each cycle and ignores one whose group cannot use
//    it now (missing queue, too few members, quota, no fit even with the reservation).
//  * The scheduler only ever reads it (const&): Scheduler::schedule(snapshot, now) returns
//    Decisions and the world applies them. No cycle rebuilds anything from scratch: every index
//    below is maintained by the update methods, in O(log n) per change.
//  * Determinism: every ordered index is keyed by values the world controls (names, priorities,
//    creation times, the store's creation sequence, ids given out in call order). Ids are
//    recycled from removed objects, so an order that must not depend on unrelated earlier
//    objects (§8.5 creation order) is decided by the creation sequence before the id. Hash maps
//    are used for look-up by name only.
//
// Keys: pods and PodGroups are keyed "<namespace>/<name>" (just "<name>" when the namespace is
// empty); queues and nodes by name. A pod names its PodGroup in its own namespace.
// Objects may arrive in any order: a pod whose PodGroup or queue is not known yet waits (the
// snapshot keeps a stand-in entry that is not schedulable until the real object arrives).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "kernel/chunked_pool.hpp"
#include "model/cluster.hpp"
#include "model/compact_vector.hpp"
#include "model/scheduling.hpp"
#include "model/topology.hpp"
#include "scheduler/free_index.hpp"
#include "scheduler/key_index.hpp"
#include "scheduler/resources.hpp"

namespace t9k::scheduler {

using NodeId = std::int32_t;
using QueueId = std::int32_t;
using GroupId = std::int32_t;
using PodId = std::int32_t;
using SelectorId = std::int32_t;  // -1: matches every node
using ShapeId = std::int32_t;
inline constexpr std::int32_t kNone = -1;

using model::object_key;  // "<namespace>/<name>" (model/meta.hpp)

enum class PodState { Pending, Bound, Terminating, Succeeded, Failed };

struct NodeInfo {
  std::string name;
  model::Labels labels;
  bool present = false;
  bool ready = true;
  bool unschedulable = false;
  DenseRes allocatable;
  // Requests of pods on the node that are Bound or Terminating. In the GPU dimension a GPU
  // shared by t9ksim.io/gpu-milli pods counts whole (1000) as soon as one share is on it, so
  // free(kDimGpu) is what a whole-GPU pod can have: 1000 x the GPUs no one uses.
  DenseRes used;
  DenseRes terminating;  // the part of `used` held by Terminating pods (GPU: whole-GPU pods only)
  // Shared GPUs ("Shared GPUs" in docs/scheduler.md): by slot, the milli-GPU held by shared pods
  // (Bound or Terminating) and the part of it held by Terminating ones. A slot is a label, not a
  // physical GPU: whole-GPU pods take a count of the untouched slots, shared pods one slot each.
  // Sized to at least the node's GPUs; empty for a node without GPUs.
  std::vector<std::int32_t> share_used;
  std::vector<std::int32_t> share_terminating;
  std::int32_t shared_slots = 0;  // slots with share_used > 0
  std::int32_t rack = kNone;      // index into ClusterSnapshot::racks()
  model::Topology::Vertex vertex{};
  // Its rack and switch in the topology (a node is always at depth 3: spine, switch, rack), so
  // that the distance between two nodes is three compares (the topology score's hot path).
  model::Topology::Vertex rack_vertex{};
  model::Topology::Vertex switch_vertex{};
  std::int64_t free(Dim d) const { return at(allocatable, d) - at(used, d); }
  bool schedulable() const { return present && ready && !unschedulable; }
};

// Order of pending PodGroups inside a queue (§8.5): higher priority, then earlier creation. Equal
// creation times go in creation order (metadata.creation_sequence, never reused); the id, which
// is recycled from removed groups, only separates objects the store did not number (tests).
// Ordered as the tuple (-priority, creation µs, creation sequence, id); laid out without a
// tuple's padding (24 bytes, not 32: one in every pending entry, issue 49).
struct GroupOrderKey {
  std::int32_t neg_priority = 0;
  GroupId group = 0;
  std::int64_t creation = 0;
  std::uint64_t sequence = 0;
  friend bool operator==(const GroupOrderKey&, const GroupOrderKey&) = default;
  friend auto operator<=>(const GroupOrderKey& a, const GroupOrderKey& b) {
    return std::tie(a.neg_priority, a.creation, a.sequence, a.group) <=>
           std::tie(b.neg_priority, b.creation, b.sequence, b.group);
  }
};
// Order of victim PodGroups inside a queue (§11 Q9): lower priority, then newest.
using VictimOrderKey = std::tuple<std::int32_t /*priority*/, std::int64_t /*-creation µs*/,
                                  std::int64_t /*-creation sequence*/, GroupId>;
// Order of default-scheduler pods: higher pod priority, then earlier creation (FIFO).
using PodOrderKey = std::tuple<std::int32_t /*-priority*/, std::int64_t /*creation µs*/,
                               std::uint64_t /*creation sequence*/, PodId>;
// The object a key orders.
inline GroupId group_of(const GroupOrderKey& k) { return k.group; }
inline GroupId group_of(const VictimOrderKey& k) { return std::get<3>(k); }
inline PodId pod_of(const PodOrderKey& k) { return std::get<3>(k); }

// A pending PodGroup as the cycle reads it (Scheduler, t9k stage): in queue order (GroupOrderKey),
// flat, so that walking past groups that cannot be placed costs a few nanoseconds each instead of
// a tree walk plus a look at every member.
struct PendingEntry {  // 72 bytes, small parts last: one per waiting group (issue 49)
  GroupOrderKey key;
  std::int64_t min_gpu = 0;  // smallest GPU request (milli) among the group's pending pods
  // The scheduler's pending-reason scratch (docs/scheduler.md "Why is this job pending?"): a
  // non-zero hash of the reason it last reported for the group (0: none yet in this wait; the
  // entry lives exactly as long as the group is pending); beside the entry so that a cycle
  // walking thousands of unchanged groups reads no other memory. No decision reads it.
  mutable std::uint64_t reported = 0;
  std::int32_t need = 0;  // max(0, minMember - bound - succeeded): the gang core's size floor
  std::int32_t pending_pods = 0;  // a gang not running is short of pods below `need`
  // For a group not running whose pending pods all have one shape (whole GPUs) and satisfy the
  // gang permit (§8.3: minMember, and each role's minimum), with a core of exactly `need` pods
  // (§8.4: the role minimums add up to no more): that shape; kNone otherwise. The cycle answers
  // such a gang's certain failure without looking at its pods (issue 49).
  ShapeId core_shape = kNone;
  // The scheduler's lazy bookkeeping (lazy_waits.cpp): whether its walks pass the group by its
  // kind's bit (`passable`), since which cycle, of which kind (shape and size; -1: none), and the
  // last cycle whose reason `reported` holds. No decision reads them.
  mutable std::uint32_t passable_since = 0;
  mutable std::int32_t passed_kind = -1;
  mutable std::uint32_t reported_run = 0;
  bool running = false;  // a pod bound or succeeded (§11 Q10: placed one by one)
  // No longer pending (issue 49): erased entries stay in place, in key order, until a third of
  // the index is dead, so that a group placed in the middle of a deep queue costs O(log n) and
  // not a move of everything behind it. Readers skip them; an insert of the same key revives it.
  bool dead = false;
  // The world has published this wait and since kept a later reason of the same cause, Capacity
  // (set_lazy): its capacity reasons may go unreported while they change, the last one given
  // when the group is next looked at (Decisions::caught_up). No decision reads it.
  mutable bool lazy = false;
  mutable bool passable = false;
};

struct QueueInfo {
  std::string name;
  bool present = false;
  std::int32_t priority = 0;
  bool preemptible = true;
  bool closed = false;
  std::optional<model::SimDuration> max_duration;
  bool has_quota = false;
  DenseRes quota;
  std::vector<Dim> quota_dims;  // dimensions named in quota.requests
  SelectorId selector = kNone;
  DenseRes allocated;  // §8.7: requests of Bound and Terminating pods
  DenseRes requested;  // requests of every live pod (Pending, Bound, Terminating): admission quota
  // The queued groups (>= 1 pending pod, not finished) in queue order, with dead entries.
  std::vector<PendingEntry> pending_index;
  std::size_t pending_dead = 0;  // dead entries in pending_index
  bool has_pending() const { return pending_index.size() > pending_dead; }
  // What the snapshot changed in pending_index since the scheduler last read it, for the cycle's
  // skip tree over it (issue 49): the positions of entries changed, added at the end, revived or
  // killed; `relaid` when entries moved (an insert before the end, a compaction) or the list grew
  // past the index's length, and the tree must be built again. The scheduler consumes both.
  mutable std::vector<std::uint32_t> touched;
  mutable bool relaid = true;
  // Entries the scheduler's walks passed lazily (PendingEntry::passable) that were erased or reset
  // since, as they were: the scheduler gives their reasons from the cycle that passed them before
  // anything else (lazy_waits.cpp, issue 49), and consumes them.
  mutable std::vector<PendingEntry> departed;
  std::set<VictimOrderKey> running_groups;  // groups with >= 1 Bound (not terminating) pod
  // Non-terminal pods by (creation µs, creation sequence, id): maxDuration expiry order. Kept
  // only while the queue has a maxDuration (empty otherwise): every pod change would otherwise
  // pay an erase and an insert here for nothing.
  std::set<std::tuple<std::int64_t, std::uint64_t, PodId>> live_pods;
  std::int32_t groups = 0;  // present PodGroups naming this queue
};

struct RoleMin {
  model::Text name;
  std::int32_t min_member = 0;
};

struct GroupInfo {  // small parts together: one per PodGroup (issue 49)
  model::Text key;
  bool present = false;
  bool implicit = false;  // a bare T9k pod acting as a one-member group (§8.5)
  // spec.finished (§8.3): the job is terminal; its pending pods are not queued for allocation.
  bool finished = false;
  QueueId queue = kNone;
  std::int32_t priority = 0;
  std::int32_t min_member = 1;
  std::int64_t creation = 0;   // µs; §11 Q20: a resumed job keeps it
  std::uint64_t sequence = 0;  // metadata.creation_sequence
  // Whether the group waits in its queue for allocation.
  bool queued() const { return n_pending > 0 && !finished; }
  GroupOrderKey order_key(GroupId g) const { return {-priority, g, creation, sequence}; }
  VictimOrderKey victim_key(GroupId g) const {
    return {priority, -creation, -static_cast<std::int64_t>(sequence), g};
  }
  // Its roles' minimums, and its pods in order of arrival: in place for one role and two pods
  // (most groups), no block of their own.
  absl::InlinedVector<RoleMin, 1> roles;
  absl::InlinedVector<PodId, 2> pods;
  // §8.6 nomination: resources reserved per node for this group (ClusterSnapshot::nominate);
  // rare, so a pointer and no block while there is none.
  model::CompactVector<std::pair<NodeId, SparseRes>> nominated;
  std::int32_t n_pending = 0, n_bound = 0, n_terminating = 0, n_succeeded = 0, n_failed = 0;
  // Members that count toward minMember (§8.3: all but failed).
  std::int32_t members() const { return n_pending + n_bound + n_terminating + n_succeeded; }
};

struct PodInfo {
  model::Text key;
  bool present = false;
  bool t9k = false;  // scheduler_name == t9k-scheduler
  GroupId group = kNone;
  QueueId queue = kNone;
  std::int32_t priority = 0;
  std::int64_t creation = 0;   // µs
  std::uint64_t sequence = 0;  // metadata.creation_sequence
  PodOrderKey order_key(PodId p) const { return {-priority, creation, sequence, p}; }
  SparseRes request;
  SelectorId selector = kNone;  // the pod's nodeSelector
  ShapeId shape = kNone;        // interned (request, selector)
  model::Text role;
  NodeId node = kNone;
  // A shared-GPU pod (t9ksim.io/gpu-milli): its share of one GPU in milli (1..1000; `request`
  // carries the same amount in the GPU dimension, so queues account a fraction of a GPU), and
  // the slot of `node` it holds while Bound or Terminating. 0 and kNone for other pods.
  std::int32_t gpu_share = 0;
  std::int32_t gpu_slot = kNone;
  PodState state = PodState::Pending;
};

// One node of a preemptor's planned placement: what its pods will take there (§8.6 nomination).
struct NodeReservation {
  std::string node;
  model::ResourceList resources;
  bool operator==(const NodeReservation&) const = default;
};

struct Selector {
  model::LabelSelector selector;
  std::vector<char> matches;  // by NodeId
};

struct Rack {
  std::string name;
  std::vector<NodeId> nodes;  // sorted by id
};

// Best fit of a share of g milli-GPU over a node's slots, the one rule for the snapshot and the
// cycle: the used slot with the least room left that holds it (a slot's use is used[i] minus
// back[i], what comes back in a preemption trial; `back` may be empty), unless `rooms` is false;
// else the first unused slot when `whole_free` (a whole GPU is free). {slot, room left after},
// slot kNone when neither.
struct SlotFit {
  std::int32_t slot = kNone;
  std::int32_t room_after = 0;
};
SlotFit best_fit_slot(const std::vector<std::int32_t>& used, const std::vector<std::int32_t>& back,
                      std::int32_t g, bool rooms, bool whole_free);

class ClusterSnapshot {
 public:
  // Groups and pods in chunks of 1,024 that never move (a vector's doubling held 32,768 slots for
  // 20,000 groups, and both arrays at once while it grew: issue 49).
  using Groups = kernel::ChunkedPool<GroupInfo, 1024>;
  using Pods = kernel::ChunkedPool<PodInfo, 1024>;

  ClusterSnapshot();

  // ---- world-side updates --------------------------------------------------------------------
  void upsert_node(const model::Node& node);
  void remove_node(const std::string& name);  // its pods keep their binding until removed
  void upsert_queue(const model::Queue& queue);
  void remove_queue(const std::string& name);
  // Pods and groups are filed under an id, which upsert_pod_group and upsert_pod return. A caller
  // that keeps it hands it back as `hint` with later changes of the same object: a valid hint
  // (one naming that very key) replaces a hashed look-up of the key by a compare; any other
  // hint (kNone, stale, another object's) is ignored and the key looked up.
  GroupId upsert_pod_group(const model::PodGroup& group, GroupId hint = kNone);
  void remove_pod_group(const std::string& key, GroupId hint = kNone);
  // `group_hint`: the id of the pod's PodGroup (Pod::pod_group), when the caller has it.
  PodId upsert_pod(const model::Pod& pod, GroupId group_hint = kNone);
  // The same, with the pod's key made by its owner (the store's: a long one's characters are
  // shared with it, not copied).
  PodId upsert_pod(const model::Pod& pod, const model::Text& key, GroupId group_hint);
  void remove_pod(const std::string& key);  // erasing the key from the index hashes it anyway
  // `gpu_slot` is the slot a shared-GPU pod takes (Binding::gpu_slot); kNone lets the snapshot
  // choose best-fit, as the scheduler would.
  void bind(const std::string& pod_key, const std::string& node, std::int32_t gpu_slot = kNone);
  // The same by the ids a Binding carries, when they still name that pod and node (else by
  // names): two string compares instead of two hashed look-ups.
  void bind(PodId pod, NodeId node, const std::string& pod_key, const std::string& node_name,
            std::int32_t gpu_slot = kNone);
  void evict(const std::string& pod_key, PodId hint = kNone);
  void release(const std::string& pod_key, bool succeeded, PodId hint = kNone);
  // §8.6 nomination: replaces every reservation of `group_key` by `plan` (nodes unknown to the
  // snapshot and empty amounts are skipped; an empty plan clears). Ignored for an unknown group
  // or one that no longer needs it (see THE CONTRACT).
  void nominate(const std::string& group_key, const std::vector<NodeReservation>& plan);
  // Marks the waiting group g (of creation sequence `sequence`) as one whose capacity reasons
  // need not be reported while they change (PendingEntry::lazy), or no longer; nothing when it
  // is not waiting. The world's scheduling driver calls it (issue 49).
  // Whether the group's entry now has that mark (false when it is not waiting).
  bool set_lazy(GroupId g, std::uint64_t sequence, bool lazy);

  // ---- read side (scheduler) -----------------------------------------------------------------
  const ResourceTable& resources() const { return resources_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  const std::vector<QueueInfo>& queues() const { return queues_; }
  // Indexed by id below size(); a released id reads as a default record until it is reused.
  const Groups& groups() const { return groups_; }
  const Pods& pods() const { return pods_; }
  const std::vector<Selector>& selectors() const { return selectors_; }
  const std::vector<Rack>& racks() const { return racks_; }
  const model::Topology& topology() const { return topology_; }
  // Present nodes by (free GPU milli, id): candidates for a pod needing g GPUs start at
  // lower_bound({g, -1}); bin-packing walks it upwards.
  const FreeGpuIndex& nodes_by_free_gpu() const { return by_free_gpu_; }
  // Shared GPUs: every slot holding a share with room left, by (room in milli, node, slot), so
  // best-fit for a share of g walks up from lower_bound({g, ...}); present pods requesting
  // t9ksim.io/gpu-milli.
  const std::set<std::tuple<std::int32_t, NodeId, std::int32_t>>& share_rooms() const {
    return share_rooms_;
  }
  std::int64_t shared_pod_count() const { return shared_pods_; }
  // Best-fit slot for a share of g milli on node n in the snapshot's own state: the used slot
  // with the least room left that fits, else the first unused slot if a whole GPU is free;
  // kNone when neither.
  std::int32_t best_slot(NodeId n, std::int32_t g) const;
  const std::set<NodeId>& nodes_with_terminating() const { return terminating_nodes_; }
  // Groups holding reservations (GroupInfo::nominated non-empty), by id.
  const std::set<GroupId>& nominated_groups() const { return nominated_; }
  const std::set<PodOrderKey>& default_pending() const { return default_pending_; }
  const std::set<std::pair<std::int32_t, QueueId>>& queues_by_priority() const {
    return queues_by_priority_;
  }
  const DenseRes& cluster_capacity() const { return capacity_; }  // all present nodes
  // The largest GPU allocatable (milli) any node has had: an upper bound of every node's, for the
  // score bounds that end a candidate walk early (Scheduler, find_node_whole).
  std::int64_t max_gpu_allocatable() const { return max_gpu_allocatable_; }
  // The same for CPU; and whether any node ever had none (bin-pack counts such a node full).
  std::int64_t max_cpu_allocatable() const { return max_cpu_allocatable_; }
  bool some_node_without_cpu() const { return some_node_without_cpu_; }
  // Free resources summed over schedulable nodes (NodeInfo::schedulable).
  const DenseRes& schedulable_free() const { return schedulable_free_; }
  // Bumped by every update method: a cache of anything derived from the snapshot is valid only
  // while the version it was computed at is current.
  std::uint64_t version() const { return version_; }
  std::size_t shape_count() const { return shapes_.size(); }
  const SparseRes& shape_request(ShapeId s) const {
    return shape_keys_[static_cast<std::size_t>(s)].first;
  }
  SelectorId shape_selector(ShapeId s) const {
    return shape_keys_[static_cast<std::size_t>(s)].second;
  }

  std::optional<NodeId> find_node(const std::string& name) const;
  std::optional<QueueId> find_queue(const std::string& name) const;
  std::optional<GroupId> find_group(const std::string& key) const;
  std::optional<PodId> find_pod(const std::string& key) const;
  bool selector_matches(SelectorId s, NodeId n) const {
    return s == kNone ||
           selectors_[static_cast<std::size_t>(s)].matches[static_cast<std::size_t>(n)] != 0;
  }
  // The earliest instant at which some live pod reaches its queue's maxDuration (§8.8), so the
  // world can schedule a cycle then; nullopt when no queue has a limit or no pod is live.
  std::optional<model::SimTime> next_max_duration_expiry() const;

 private:
  NodeId node_id(std::string_view name);
  QueueId queue_id(std::string_view name);
  GroupId group_id(std::string_view key);
  SelectorId intern_selector(const model::LabelSelector& sel);
  ShapeId intern_shape(const SparseRes& request, SelectorId sel);
  void refresh_selectors_for(NodeId n);
  void set_free_index(NodeId n, bool add);
  void share_add(NodeId n, std::int32_t slot, std::int32_t g, bool terminating);  // g < 0 removes
  void bind_ids(PodId p, NodeId n, std::int32_t gpu_slot);
  void detach_pod(PodId p);  // removes every contribution of the pod's current state
  void attach_pod(PodId p);
  void detach_group(GroupId g);
  void attach_group(GroupId g);
  // What a caller's hint names while it is filed (a dropped group's key is empty, a removed pod
  // is not present), or null; the caller compares the key it has with the one found.
  const GroupInfo* hinted_group(GroupId hint) const {
    if (hint < 0 || static_cast<std::size_t>(hint) >= groups_.size()) return nullptr;
    const GroupInfo& g = groups_[static_cast<std::size_t>(hint)];
    return g.key.empty() ? nullptr : &g;
  }
  const PodInfo* hinted_pod(PodId hint) const {
    if (hint < 0 || static_cast<std::size_t>(hint) >= pods_.size()) return nullptr;
    const PodInfo& p = pods_[static_cast<std::size_t>(hint)];
    return p.present ? &p : nullptr;
  }
  PodId pod_ref(const std::string& key, PodId hint = kNone) const;  // throws std::out_of_range
  // The group filed under `namespace_/name`: `hint` when it is that group's id, else by key.
  GroupId group_of_key(std::string_view namespace_, std::string_view name, GroupId hint);
  void maybe_drop_group(GroupId g);
  void settle_nomination(GroupId g);  // drops the reservations of a group that no longer needs them
  void pending_insert(QueueId q, const GroupOrderKey& key);
  void pending_erase(QueueId q, const GroupOrderKey& key);
  void flush_pending_entries();  // recomputes the PendingEntry fields of touched groups
  // Notes a change at `pos` of q's pending_index (QueueInfo::touched).
  static void touch(QueueInfo& q, std::size_t pos);
  bool plain_core(const GroupInfo& g, std::int32_t need) const;

  ResourceTable resources_;
  model::Topology topology_;
  std::vector<NodeInfo> nodes_;
  std::vector<QueueInfo> queues_;
  Groups groups_;  // by GroupId; ids of removed groups are reused, last released first
  Pods pods_;      // by PodId; likewise
  std::vector<Selector> selectors_;
  std::vector<Rack> racks_;
  std::unordered_map<std::string, std::int32_t> rack_ids_;
  // Key -> id, look-up only, never iterated (absl's order is unspecified): one probe of a flat
  // array per look-up on the binding path (docs/performance.md).
  absl::flat_hash_map<std::string, NodeId, StringKeyHash, StringKeyEq> node_ids_;
  absl::flat_hash_map<std::string, QueueId, StringKeyHash, StringKeyEq> queue_ids_;
  KeyIndex<Groups, GroupId> group_ids_{groups_};
  KeyIndex<Pods, PodId> pod_ids_{pods_};
  std::unordered_map<std::string, SelectorId> selector_ids_;
  std::map<std::pair<SelectorId, SparseRes>, ShapeId> shapes_;  // a few dozen shapes
  std::vector<std::pair<SparseRes, SelectorId>> shape_keys_;
  FreeGpuIndex by_free_gpu_;
  std::set<std::tuple<std::int32_t, NodeId, std::int32_t>> share_rooms_;
  std::int64_t shared_pods_ = 0;
  std::set<NodeId> terminating_nodes_;
  std::set<GroupId> nominated_;
  std::set<PodOrderKey> default_pending_;
  std::set<std::pair<std::int32_t, QueueId>> queues_by_priority_;  // (-priority, id), present
  std::set<QueueId> queues_with_max_duration_;
  DenseRes capacity_;
  std::int64_t max_gpu_allocatable_ = 0;
  std::int64_t max_cpu_allocatable_ = 0;
  bool some_node_without_cpu_ = false;
  DenseRes schedulable_free_;
  std::vector<GroupId> dirty_groups_;  // PendingEntry fields to recompute
  std::uint64_t version_ = 0;
};

}  // namespace t9k::scheduler
