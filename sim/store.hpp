// The object store: every Job, Pod, PodGroup, Queue and Node of the simulated cluster, under
// dense job ids and name indexes, with the bookkeeping of what bound pods hold on each node and
// in each queue, and the change feed. Other components read objects through const views and
// change them only through the methods below; each method changes the objects, tells the
// watcher (the scheduling driver's snapshot, as informers feed kube-scheduler's cache) and
// publishes the change to the feed (analysis/ and events.jsonl), synchronously.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "controllers/controller.hpp"
#include "kernel/chunked_pool.hpp"
#include "model/accelerators.hpp"
#include "model/change.hpp"
#include "model/cluster.hpp"
#include "model/heap_optional.hpp"
#include "model/jobs.hpp"
#include "model/scheduling.hpp"
#include "model/text.hpp"
#include "scenarios/format/manifests.hpp"
#include "scheduler/key_index.hpp"
#include "sim/common.hpp"

namespace t9k::sim {

// What a run tells about one job (kept when a finished job is compacted).
struct JobOutcome {
  std::string name;
  model::JobKind kind;
  std::optional<model::JobPhase> phase;  // unset: rejected or never reconciled
  std::string reason;
  std::string message;
  bool rejected = false;
  std::int32_t restarts = 0;
  std::int32_t backoff_count = 0;
};

// The scheduler snapshot's ids of a pod and its node, as a scheduling decision carries them
// (scheduler::Binding): Store::bind_pod hands them to its watcher with the binding, which can
// skip looking the names up again. The store neither reads nor checks them; -1 is none.
struct SnapshotIds {
  std::int32_t pod = -1;
  std::int32_t node = -1;
};

// Told of every change to nodes, queues, PodGroups and pods, in the order they happen.
//
// Hints: pod_group_changed and pod_created return an id of the watcher's own (the scheduler
// snapshot's GroupId / PodId; -1 for none), which the store keeps beside the object and hands
// back as `hint` with that object's later changes, so the watcher can skip looking its key up.
// The store never reads them; the watcher must check a hint before trusting it.
class StoreWatcher {
 public:
  virtual ~StoreWatcher() = default;
  virtual void node_changed(const model::Node& node) = 0;
  virtual void node_removed(
      const std::string& name) = 0;  // its pods keep their binding until removed
  virtual void queue_changed(const model::Queue& queue) = 0;
  virtual std::int32_t pod_group_changed(const model::PodGroup& group, std::int32_t hint) = 0;
  virtual void pod_group_removed(const std::string& key, std::int32_t hint) = 0;
  // `group_hint`: what pod_group_changed returned for the pod's job's PodGroup (-1: none yet).
  // `key`: the pod's key as the store keeps it (a copy shares a long one's characters).
  virtual std::int32_t pod_created(const model::Pod& pod, const model::Text& key,
                                   std::int32_t group_hint) = 0;
  // `ids` are what the caller of Store::bind_pod passed, unchanged.
  virtual void pod_bound(const std::string& key, const std::string& node, std::int32_t gpu_slot,
                         SnapshotIds ids) = 0;
  // A bound, live pod is being deleted: it holds its resources until it is gone.
  virtual void pod_terminating(const std::string& key, std::int32_t hint) = 0;
  // A bound pod stopped holding its node's and queue's resources.
  virtual void pod_released(const std::string& key) = 0;
  virtual void pod_terminated(const std::string& key, bool succeeded, std::int32_t hint) = 0;
  virtual void pod_removed(const std::string& key) = 0;
};

// A stored pod and the job that owns it.
struct PodRef {
  JobId job = 0;
  const model::Pod* pod = nullptr;  // nullptr: no pod of that key is stored
};

// One job and everything the cluster stores for it.
struct StoredJob {  // small parts last: 768 bytes (one per job in the world, issue 49)
  JobId id = 0;
  std::int32_t priority = 0;
  model::Text key;               // namespace/name
  model::Job job;                // spec, and the status its controller last wrote
  std::vector<model::Pod> pods;  // every pod stored for the job (what its controller observes)
  std::optional<model::PodGroup> pod_group;
  // Rare (PyTorch jobs with a TensorBoard, §9): off the record, which every job has.
  model::HeapOptional<controllers::TensorBoardObservation> tensorboard;
  model::Text queue;  // T9k queue, empty for the default scheduler
  model::JobShape shape;
  model::Text reject_reason;  // rare too: 16 bytes, not 32
  // Pod name -> generation of the last removed pod of that name; a live pod carries its own
  // (few jobs ever remove a pod, so most jobs keep nothing here: a pointer, no block).
  model::CompactVector<std::pair<std::string, std::int32_t>> past_generations;
  // The watcher's hints (StoreWatcher): each pod's, aligned with `pods` (in place for up to
  // four pods), and its PodGroup's.
  absl::InlinedVector<std::int32_t, 4> pod_hints;
  std::int32_t group_hint = -1;
  bool submitted = false;  // admitted: its controller reconciles it
  bool rejected = false;
  bool compacted = false;  // finished: no longer reconciled (see Store::compact)
};

class Store {
 public:
  using Sink = std::function<void(const model::TimedChange&)>;

  Store(const kernel::Kernel& kernel, Sink sink, std::string default_namespace,
        model::Accelerators accelerators = {});
  void set_watcher(StoreWatcher* watcher) { watcher_ = watcher; }
  // What counts as a GPU on this cluster (spec.cluster.accelerators).
  const model::Accelerators& accelerators() const { return acc_; }

  // ---- the change feed ----
  template <class C>
  void publish(C change) {
    if (sink_) sink_(model::TimedChange{k_.now(), model::Change{std::move(change)}});
  }

  // ---- nodes (each change publishes NodeChanged with `cause`) ----
  void add_node(model::Node node);  // cause "added"
  void remove_node(const std::string& name);
  void set_node_ready(const std::string& name, bool ready, const std::string& cause);
  void set_node_unschedulable(const std::string& name, bool unschedulable,
                              const std::string& cause);
  // GPUs withheld (delta < 0) or given back; allocatable stays within [0, capacity] (a violation).
  void add_allocatable_gpus(const std::string& name, std::int64_t delta, const std::string& cause);
  const model::Node* node(const std::string& name) const;
  const std::map<std::string, model::Node>& nodes() const { return nodes_; }  // ordered by name
  // Keys of the pods bound to the node that still hold resources there, in key order (a copy:
  // callers delete pods while they go through it).
  std::vector<std::string> pods_on(const std::string& node) const;
  // GPUs of the node no other pod can have: whole-GPU requests plus the GPUs holding a share.
  std::int64_t gpus_in_use(const std::string& node) const;
  // What the pods bound to the node request, summed (empty for a node with none).
  const model::ResourceList& node_used(const std::string& node) const;

  // ---- queues ----
  void add_queue(const model::Queue& queue);
  void set_queue_closed(const std::string& name, bool closed);          // publishes QueueChanged
  void set_queue_spec(const std::string& name, model::QueueSpec spec);  // setQueue (spec §8.2)
  const model::Queue* queue(const std::string& name) const;
  const std::map<std::string, model::Queue>& queues() const { return queues_; }
  // Requests of the queue's bound, live pods, shares counted as fractions of nvidia.com/gpu.
  const model::ResourceList& queue_used(const std::string& name) const;

  // ---- jobs ----
  // Stores a job under the next dense id (namespace defaulted, key, queue, priority and shape
  // derived from its spec). Throws ScenarioError when a job of that key exists.
  JobId add_job(model::Job&& job, const std::string& source);
  JobId add_job(const model::Job& job, const std::string& source) {
    return add_job(model::Job(job), source);
  }
  // A compacted job's record is released (unless finished jobs are kept): it reads as a shared
  // record with `compacted` set and nothing else.
  const StoredJob& job(JobId id) const {
    return released(id) ? released_ : job_records_[job_slot_[id]];
  }
  std::size_t job_count() const { return job_slot_.size(); }
  // Every stored object as the API would show it now (`t9ksim run --objects`): the queues with
  // their status (pod groups, pods by phase, allocated), then each job not compacted with its
  // PodGroup and the group's status (pods by phase, allocated, the two conditions).
  std::vector<scenarios::Object> objects() const;
  // Compacted jobs keep their objects for objects() (memory grows with finished jobs).
  void set_keep_finished(bool keep) { keep_finished_ = keep; }
  // Compacted jobs keep their outcome for outcome() (memory grows with finished jobs).
  void set_keep_outcomes(bool keep) { keep_outcomes_ = keep; }
  // By key, or by name in the scenario's default namespace; nullptr when unknown or compacted
  // and released.
  const StoredJob* find_job(const std::string& name) const;
  // The id of a job by key or name, compacted or not.
  std::optional<JobId> find_job_id(const std::string& name) const;
  void set_created(JobId id);  // metadata.creationTimestamp = now, uid
  void admit(JobId id);        // submitted: its controller reconciles it from now on
  void reject(JobId id, const std::string& reason,
              const std::string& message);  // publishes JobRejected
  void set_status(JobId id, model::JobStatus status);
  void set_paused(JobId id, bool paused);                       // spec.runMode.pause.enabled
  void set_expected_replicas(JobId id, std::int32_t replicas);  // spec.elastic.expectedReplicas
  // CreatePodGroup stamps creation time now; UpdatePodGroup keeps the stored one (§11 Q20).
  void set_job_priority(JobId id, std::int32_t priority);  // spec.scheduler.t9kScheduler.priority
  void set_pod_group(JobId id, model::PodGroup&& group, bool keep_creation_time);
  // The job turned terminal: its PodGroup gets spec.finished and no further allocations (§8.3).
  void finish_pod_group(JobId id);
  bool create_tensorboard(JobId id);  // false when the job has one
  void set_tensorboard_ready(JobId id);
  // Pods holding a binding and not failed: the members that count toward minMember.
  std::int32_t bound_members(JobId id) const;
  // A finished job whose pods have all terminated can no longer change anything: its record is
  // released, keeping only its key (names stay unique) and, when asked, its outcome; memory
  // stays flat over long runs. The spec edits of operations on it change nothing.
  bool compactable(JobId id) const;
  void compact(JobId id);
  // Throws std::logic_error for a compacted job whose outcome was not kept.
  JobOutcome outcome(JobId id) const;

  // ---- pods ----
  std::optional<JobId> owner_of(std::string_view pod_key) const;
  PodRef locate(const std::string& pod_key) const;
  const model::Pod* pod(const std::string& key) const { return locate(key).pod; }
  const model::Pod* pod_named(JobId id, std::string_view name) const;  // in the job's namespace
  // Fills uid, creation time, namespace and generation (controller.hpp contract 3).
  void create_pod(JobId id, model::Pod&& pod);
  // Checks the binding against the store's own bookkeeping, independently of the scheduler's
  // snapshot: a ready, schedulable node, no node and no shared GPU over-committed (issue 6 §8).
  PodRef bind_pod(const std::string& key, const std::string& node, std::int32_t gpu_slot,
                  SnapshotIds ids = {});
  void set_pod_running(JobId id, const std::string& key);  // publishes PodRunning
  void set_pod_unknown(JobId id, const std::string& key);  // its node was lost
  // Containers stopped: the pod keeps its object. False when it had already terminated.
  bool terminate_pod(JobId id, const std::string& key, model::PodPhase phase,
                     std::int32_t exit_code);
  // deletionTimestamp = now and the reason (publishes PodDeleted); the pod stays until removed.
  const model::Pod& mark_deleted(JobId id, const std::string& key, model::DeletionReason reason);
  void set_terminating(JobId id,
                       const std::string& key);  // a deleted pod's containers are stopping
  void set_deletion_reason(JobId id, const std::string& key, model::DeletionReason reason);
  void remove_pod(JobId id, const std::string& key);

 private:
  StoredJob& at(JobId id);  // throws std::logic_error for a released record
  bool released(JobId id) const { return job_slot_[id] == kReleasedSlot; }
  model::Pod* find(JobId id, const std::string& key);
  model::Pod& pod_ref(JobId id, const std::string& key);  // throws std::logic_error when not stored
  static std::int32_t hint_of(const StoredJob& j, const model::Pod& p);  // p is one of j.pods
  static std::int32_t next_generation(const StoredJob& j, std::string_view name);
  model::ResourceList& used_by_queue(std::string_view queue);
  static void remember_generation(StoredJob& j, const model::Pod& p);  // p is leaving j.pods
  model::Node& node_ref(const std::string& name);
  void node_changed(const model::Node& n, const std::string& cause);
  // The pod's resources come back, if it held any. `key` is the pod's (object_key).
  void release(StoredJob& j, model::Pod& p, const std::string& key);
  std::int64_t shared_slots(const std::string& node) const;

  const kernel::Kernel& k_;
  Sink sink_;
  std::string default_namespace_;
  model::Accelerators acc_;
  StoreWatcher* watcher_ = nullptr;
  model::RecentValues<model::ResourceList> recent_requests_;  // jobs' shapes share their requests
  model::RecentValues<model::ResourceList> recent_pod_requests_;  // and pods theirs

  // By JobId, the record's slot in job_records_ (kReleasedSlot once released). Records never
  // move; in chunks, not a block each (800 bytes took an allocator's 896; 256 of them with the
  // array's cookie take 212,992 bytes for 204,808: issue 49).
  static constexpr std::uint32_t kReleasedSlot = UINT32_MAX;
  std::vector<std::uint32_t> job_slot_;
  kernel::ChunkedPool<StoredJob> job_records_;
  StoredJob released_;                              // what job() shows for a released record
  std::unordered_map<JobId, JobOutcome> outcomes_;  // of released records, when kept
  // Look-up only, never iterated (absl's order is unspecified): open addressing finds a key in
  // one probe of a flat array where a node-based map chased a bucket, a node and a division per
  // node (docs/performance.md, "Percentiles by selection, and flat hash maps").
  // Keys as Text (16 bytes; a job's key fits in place), looked up by any string: a pod's key is
  // made once, and the scheduler snapshot's record of the pod shares its characters.
  absl::flat_hash_map<model::Text, JobId, scheduler::StringKeyHash, scheduler::StringKeyEq>
      job_by_key_;
  absl::flat_hash_map<model::Text, JobId, scheduler::StringKeyHash, scheduler::StringKeyEq>
      pod_owner_;                             // pod key -> job
  std::map<std::string, model::Node> nodes_;  // ordered: iteration decides nothing random
  std::map<std::string, model::Queue> queues_;
  bool keep_finished_ = false;
  bool keep_outcomes_ = false;
  std::uint64_t uid_counter_ = 0;
  std::uint64_t creation_seq_ =
      0;  // metadata.creation_sequence: jobs, PodGroups and pods, never reused

  // Bound, live pods: what they hold, per node (one hashed look-up per binding and release; the
  // ordered nodes_ is a tree of string compares over every node) and per queue.
  struct NodeBook {
    model::Node* node = nullptr;  // into nodes_ (its elements never move); null once removed
    // Pod keys, in binding order (pods_on sorts them). A few per node: a vector is one
    // allocation per binding where a tree of strings was two, plus its rebalancing.
    std::vector<std::string> pods;
    model::ResourceList used;
    // Shared GPUs (t9ksim.io/gpu-milli): milli-GPU of the shares on each slot, from the bindings
    // (Pod::gpu_index), independently of the scheduler's snapshot.
    std::vector<std::int32_t> shares;
    std::int64_t used_slots() const {
      return std::count_if(shares.begin(), shares.end(), [](std::int32_t v) { return v > 0; });
    }
  };
  // Look-up only, never iterated; filled when nodes are added, so a NodeBook found stays put
  // while it is used (a flat map moves its values when it grows).
  absl::flat_hash_map<std::string, NodeBook, scheduler::StringKeyHash, scheduler::StringKeyEq>
      books_;
  const NodeBook* book(const std::string& node) const {
    const auto it = books_.find(node);
    return it == books_.end() ? nullptr : &it->second;
  }
  std::map<std::string, model::ResourceList, std::less<>> queue_used_;  // used_by_queue
};

}  // namespace t9k::sim
