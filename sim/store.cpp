#include "sim/store.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/accelerators.hpp"
#include "scheduler/snapshot.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

using model::Pod;
using model::PodPhase;

Store::Store(const kernel::Kernel& kernel, Sink sink, std::string default_namespace,
             model::Accelerators accelerators)
    : k_(kernel),
      sink_(std::move(sink)),
      default_namespace_(std::move(default_namespace)),
      acc_(std::move(accelerators)) {
  released_.compacted = true;
}

StoredJob& Store::at(JobId id) {
  if (released(id))
    throw std::logic_error(fmt::format("store: job {} was compacted and released", id));
  return job_records_[job_slot_[id]];
}

// ---- nodes ----

void Store::node_changed(const model::Node& n, const std::string& cause) {
  watcher_->node_changed(n);
  publish(model::NodeChanged{n.metadata.name.str(), n.ready, n.unschedulable,
                             acc_.gpu_milli_of(n.allocatable), cause});
}

model::Node& Store::node_ref(const std::string& name) { return nodes_.at(name); }

void Store::add_node(model::Node node) {
  const std::string name = node.metadata.name.str();
  const auto [it, fresh] = nodes_.emplace(name, std::move(node));
  if (!fresh) throw std::logic_error("node " + name + " added twice");
  books_[name].node = &it->second;
  node_changed(it->second, "added");
}

void Store::remove_node(const std::string& name) {
  watcher_->node_removed(name);
  if (const auto it = books_.find(name); it != books_.end()) it->second.node = nullptr;
  nodes_.erase(name);
}

void Store::set_node_ready(const std::string& name, bool ready, const std::string& cause) {
  auto& n = node_ref(name);
  n.ready = ready;
  node_changed(n, cause);
}

void Store::set_node_unschedulable(const std::string& name, bool unschedulable,
                                   const std::string& cause) {
  auto& n = node_ref(name);
  n.unschedulable = unschedulable;
  node_changed(n, cause);
}

void Store::add_allocatable_gpus(const std::string& name, std::int64_t delta,
                                 const std::string& cause) {
  auto& n = node_ref(name);
  const std::int64_t after = acc_.gpus_of(n.allocatable) + delta;
  if (after < 0 || after > acc_.gpus_of(n.capacity)) {
    violation(k_, fmt::format("node {} would offer {} GPUs of its {} ({})", name, after,
                              acc_.gpus_of(n.capacity), cause));
  }
  n.allocatable[acc_.resource_of(n.capacity)] += model::Quantity::from_units(delta);
  node_changed(n, cause);
}

const model::Node* Store::node(const std::string& name) const {
  const auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::vector<std::string> Store::pods_on(const std::string& node) const {
  const NodeBook* b = book(node);
  if (!b) return {};
  std::vector<std::string> keys = b->pods;
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::int64_t Store::shared_slots(const std::string& node) const {
  const NodeBook* b = book(node);
  return b ? b->used_slots() : 0;
}

std::int64_t Store::gpus_in_use(const std::string& node) const {
  const NodeBook* b = book(node);
  return b ? acc_.gpus_of(b->used) + b->used_slots() : 0;
}

// ---- queues ----

void Store::add_queue(const model::Queue& queue) {
  queues_[queue.metadata.name.str()] = queue;
  watcher_->queue_changed(queue);
}

void Store::set_queue_closed(const std::string& name, bool closed) {
  auto& q = queues_.at(name);
  q.spec.closed = closed;
  watcher_->queue_changed(q);
  publish(model::QueueChanged{name, closed});
}

void Store::set_queue_spec(const std::string& name, model::QueueSpec spec) {
  auto& q = queues_.at(name);
  q.spec = std::move(spec);
  watcher_->queue_changed(q);
  publish(model::QueueChanged{name, q.spec.closed});
}

const model::Queue* Store::queue(const std::string& name) const {
  const auto it = queues_.find(name);
  return it == queues_.end() ? nullptr : &it->second;
}

// The queue's running total, made at its first binding; found by a view of the name, so a
// binding or release builds no string.
model::ResourceList& Store::used_by_queue(std::string_view queue) {
  const auto it = queue_used_.find(queue);
  if (it != queue_used_.end()) return it->second;
  return queue_used_.emplace(std::string(queue), model::ResourceList{}).first->second;
}

const model::ResourceList& Store::queue_used(const std::string& name) const {
  static const model::ResourceList kNone;
  const auto it = queue_used_.find(name);
  return it == queue_used_.end() ? kNone : it->second;
}

// ---- jobs ----

JobId Store::add_job(model::Job&& job, const std::string& source) {
  const std::uint32_t slot = job_records_.acquire();
  StoredJob& j = job_records_[slot];
  j.id = static_cast<JobId>(job_slot_.size());
  j.job = std::move(job);
  auto& meta = model::metadata_of(j.job);
  if (meta.namespace_.empty()) meta.namespace_ = default_namespace_;
  j.key = model::object_key(meta);
  if (const auto& s = model::scheduler_of(j.job).t9k_scheduler) {
    j.queue = s->queue.empty() ? model::Text::fixed(model::kDefaultQueue) : s->queue;
    j.priority = s->priority;
  }
  j.shape = shape_of(j.job, acc_, &recent_requests_);
  if (!job_by_key_.try_emplace(j.key, j.id).second) {
    const std::string key(j.key);
    job_records_.release(slot);
    throw ScenarioError(fmt::format("two jobs named {} ({})", key, source));
  }
  job_slot_.push_back(slot);
  return j.id;
}

std::optional<JobId> Store::find_job_id(const std::string& name) const {
  auto it = job_by_key_.find(name);
  if (it == job_by_key_.end()) it = job_by_key_.find(default_namespace_ + "/" + name);
  if (it == job_by_key_.end()) return std::nullopt;
  return it->second;
}

const StoredJob* Store::find_job(const std::string& name) const {
  const auto id = find_job_id(name);
  return id && !released(*id) ? &job(*id) : nullptr;
}

void Store::set_created(JobId id) {
  auto& meta = model::metadata_of(at(id).job);
  meta.creation_timestamp = k_.now();
  meta.creation_sequence = ++creation_seq_;
  meta.uid = model::numbered("job-", id);
}

void Store::admit(JobId id) { at(id).submitted = true; }

void Store::reject(JobId id, const std::string& reason, const std::string& message) {
  StoredJob& j = at(id);
  j.rejected = true;
  j.reject_reason = message;
  publish(model::JobRejected{id, reason + ": " + message});
}

void Store::set_status(JobId id, model::JobStatus status) {
  // A reconcile leaves room for conditions it may add; the stored status keeps only its own
  // (two empty conditions in every waiting job were 2 MB of the backlog's peak, issue 49).
  status.conditions.shrink_to_fit();
  model::status_of(at(id).job) = std::move(status);
}

void Store::set_paused(JobId id, bool paused) {
  if (released(id)) return;  // finished and gone: nothing to pause (operations may still name it)
  std::visit(
      [&](auto& x) {
        if (x.spec.run_mode->pause.enabled != paused) x.spec.run_mode.edit().pause.enabled = paused;
      },
      at(id).job);
}

void Store::set_expected_replicas(JobId id, std::int32_t n) {
  if (released(id)) return;
  StoredJob& j = at(id);
  std::visit(
      [&](auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (!std::is_same_v<X, model::GenericJob> &&
                      !std::is_same_v<X, model::PluginJob>) {
          if (x.spec.elastic) x.spec.elastic->expected_replicas = n;
        }
      },
      j.job);
  if (j.shape.elastic) j.shape.expected = std::clamp(n, j.shape.min, j.shape.max);
}

void Store::set_job_priority(JobId id, std::int32_t priority) {
  if (released(id)) return;
  std::visit(
      [&](auto& x) {
        if (x.spec.scheduler.t9k_scheduler) x.spec.scheduler.t9k_scheduler->priority = priority;
      },
      at(id).job);
}

void Store::set_pod_group(JobId id, model::PodGroup&& group, bool keep_creation_time) {
  StoredJob& j = at(id);
  if (keep_creation_time) {
    const auto created = j.pod_group ? j.pod_group->metadata.creation_timestamp : std::nullopt;
    const std::uint64_t sequence = j.pod_group ? j.pod_group->metadata.creation_sequence : 0;
    j.pod_group = std::move(group);
    if (created) j.pod_group->metadata.creation_timestamp = created;  // §11 Q20
    // The store's own order, whatever the controller echoed (a plugin's copy does not carry it).
    j.pod_group->metadata.creation_sequence = sequence != 0 ? sequence : ++creation_seq_;
  } else {
    j.pod_group = std::move(group);
    if (!j.pod_group->metadata.creation_timestamp)
      j.pod_group->metadata.creation_timestamp = k_.now();
    j.pod_group->metadata.creation_sequence = ++creation_seq_;
  }
  // §8.3: a finished job's PodGroup stays finished, whatever the controller's copy says.
  const auto& phase = model::status_of(j.job).phase;
  j.pod_group->spec.finished = phase && model::is_terminal(*phase);
  j.group_hint = watcher_->pod_group_changed(*j.pod_group, j.group_hint);
}

void Store::finish_pod_group(JobId id) {
  StoredJob& j = at(id);
  if (!j.pod_group || j.pod_group->spec.finished) return;
  j.pod_group->spec.finished = true;
  j.group_hint = watcher_->pod_group_changed(*j.pod_group, j.group_hint);
}

bool Store::create_tensorboard(JobId id) {
  StoredJob& j = at(id);
  if (j.tensorboard) return false;
  j.tensorboard = controllers::TensorBoardObservation{fmt::format("tb-{}", ++uid_counter_), false};
  return true;
}

void Store::set_tensorboard_ready(JobId id) {
  if (!released(id)) at(id).tensorboard->ready = true;  // the job may have finished meanwhile
}

std::int32_t Store::bound_members(JobId id) const {
  std::int32_t members = 0;
  for (const auto& p : job(id).pods) {
    if (!p.node_name.empty() && p.phase != PodPhase::Failed) ++members;
  }
  return members;
}

bool Store::compactable(JobId id) const {
  const StoredJob& j = job(id);
  if (j.compacted) return false;
  const auto& status = model::status_of(j.job);
  if (!status.phase || !model::is_terminal(*status.phase)) return false;
  return std::all_of(j.pods.begin(), j.pods.end(), [](const Pod& p) { return terminated(p); });
}

void Store::compact(JobId id) {
  StoredJob& j = at(id);
  for (const auto& p : j.pods) {
    const std::string key = scheduler::object_key(p.metadata);
    watcher_->pod_removed(key);
    pod_owner_.erase(key);
  }
  if (j.pod_group)
    watcher_->pod_group_removed(scheduler::object_key(j.pod_group->metadata), j.group_hint);
  j.compacted = true;
  publish(model::JobLeft{id});
  // Kept for objects() (t9ksim run --objects); the job is finished for the world either way.
  if (keep_finished_) return;  // outcome() reads it from the kept record
  if (keep_outcomes_) outcomes_.emplace(id, outcome(id));
  job_records_.release(job_slot_[id]);
  job_slot_[id] = kReleasedSlot;
}

JobOutcome Store::outcome(JobId id) const {
  if (released(id)) {
    const auto it = outcomes_.find(id);
    if (it == outcomes_.end())
      throw std::logic_error(fmt::format("store: the outcome of job {} was not kept", id));
    return it->second;
  }
  const StoredJob& j = job(id);
  JobOutcome o;
  o.name = j.key;
  o.kind = model::kind_of(j.job);
  o.rejected = j.rejected;
  const auto& status = model::status_of(j.job);
  o.phase = status.phase;
  for (const auto& c : status.conditions) {
    if (status.phase && model::is_terminal(*status.phase) &&
        c.type == model::JobConditionType::Completed) {
      o.reason = c.reason;
    }
    if (c.type == model::JobConditionType::Failed && c.status == model::ConditionStatus::True)
      o.message = c.message;
  }
  if (j.rejected) o.reason = j.reject_reason;
  const auto [restarts, backoff] = status_counters(status);
  o.restarts = restarts;
  o.backoff_count = backoff;
  return o;
}

std::vector<scenarios::Object> Store::objects() const {
  struct Counts {
    std::int32_t pending = 0, running = 0, succeeded = 0, failed = 0, unknown = 0;
    void add(const Pod& p) {
      switch (p.phase) {
        case PodPhase::Pending:
          ++pending;
          break;
        case PodPhase::Running:
          ++running;
          break;
        case PodPhase::Succeeded:
          ++succeeded;
          break;
        case PodPhase::Failed:
          ++failed;
          break;
        case PodPhase::Unknown:
          ++unknown;
          break;
      }
    }
  };
  std::map<std::string, model::QueueStatus> queue_status;
  std::vector<scenarios::Object> jobs;
  for (JobId id = 0; id < job_slot_.size(); ++id) {
    if (released(id)) continue;  // compacted and released
    const StoredJob& j = job(id);
    std::visit([&](const auto& x) { jobs.emplace_back(x); }, j.job);
    if (!j.pod_group) continue;
    model::PodGroup pg = *j.pod_group;
    Counts c;
    std::int32_t holding = 0, members = 0;
    for (const auto& p : j.pods) {
      c.add(p);
      if (p.phase != PodPhase::Failed) ++members;  // §8.3: all but failed pods count
      if (!p.node_name.empty() && !terminated(p)) {
        ++holding;
        model::add_resources(pg.status.allocated, *p.requests);
      }
    }
    pg.status.pending = c.pending;
    pg.status.running = c.running;
    pg.status.succeeded = c.succeeded;
    pg.status.failed = c.failed;
    pg.status.unknown = c.unknown;
    pg.status.group_scheduled =
        holding + c.succeeded >= pg.spec.min_member && holding + c.succeeded > 0;
    pg.status.sufficient_group_member = members >= pg.spec.min_member;
    auto& qs = queue_status[pg.spec.queue.empty() ? std::string(model::kDefaultQueue)
                                                  : pg.spec.queue.str()];
    ++qs.pod_groups;
    qs.pods_pending += c.pending;
    qs.pods_running += c.running;
    qs.pods_succeeded += c.succeeded;
    qs.pods_failed += c.failed;
    qs.pods_unknown += c.unknown;
    jobs.emplace_back(std::move(pg));
  }
  std::vector<scenarios::Object> out;
  for (const auto& [name, q] : queues_) {
    model::Queue copy = q;
    copy.status = queue_status[name];
    copy.status.allocated = queue_used(name);
    out.emplace_back(std::move(copy));
  }
  for (auto& o : jobs) out.push_back(std::move(o));
  return out;
}

// ---- pods ----

std::optional<JobId> Store::owner_of(std::string_view pod_key) const {
  const auto it = pod_owner_.find(pod_key);
  if (it == pod_owner_.end()) return std::nullopt;
  return it->second;
}

PodRef Store::locate(const std::string& key) const {
  const auto it = pod_owner_.find(key);
  if (it == pod_owner_.end()) return {};
  for (const auto& p : job(it->second).pods) {
    if (model::is_key_of(p.metadata, key)) return {it->second, &p};
  }
  return {it->second, nullptr};
}

Pod& Store::pod_ref(JobId id, const std::string& key) {
  Pod* p = find(id, key);
  if (!p) throw std::logic_error("pod " + key + " not stored");
  return *p;
}

std::int32_t Store::hint_of(const StoredJob& j, const Pod& p) {
  return j.pod_hints[static_cast<std::size_t>(&p - j.pods.data())];
}

// Pod keys are unique among a job's stored pods (create_pod refuses a reused name).
Pod* Store::find(JobId id, const std::string& key) {
  for (auto& q : at(id).pods) {
    if (model::is_key_of(q.metadata, key)) return &q;
  }
  return nullptr;
}

const Pod* Store::pod_named(JobId id, std::string_view name) const {
  for (const auto& q : job(id).pods) {
    if (q.metadata.name == name) return &q;
  }
  return nullptr;
}

// The number of pods of that name created before (generations count from 0). Generations grow
// with each creation, so the highest one stored, live or removed, is the last.
std::int32_t Store::next_generation(const StoredJob& j, std::string_view name) {
  std::int32_t last = -1;
  for (const auto& [n, g] : j.past_generations) {
    if (n == name) last = g;
  }
  for (const auto& p : j.pods) {
    if (p.metadata.name == name) last = std::max(last, p.generation);
  }
  return last + 1;
}

void Store::remember_generation(StoredJob& j, const Pod& p) {
  if (!j.past_generations.empty()) {
    for (auto& [n, g] : j.past_generations.edit()) {
      if (n == p.metadata.name) {
        g = std::max(g, p.generation);
        return;
      }
    }
  }
  j.past_generations.push_back({p.metadata.name.str(), p.generation});
}

void Store::create_pod(JobId id, Pod&& pod) {
  StoredJob& j = at(id);
  pod.metadata.uid = model::numbered("pod-", static_cast<std::int64_t>(++uid_counter_));
  pod.metadata.creation_timestamp = k_.now();
  pod.metadata.creation_sequence = ++creation_seq_;
  if (pod.metadata.namespace_.empty())
    pod.metadata.namespace_ = model::metadata_of(j.job).namespace_;
  pod.generation = next_generation(j, pod.metadata.name);
  pod.requests = recent_pod_requests_.share(std::move(pod.requests));
  // The key moves into the index (try_emplace leaves it alone when the name is taken); a copy,
  // not a view: the index's keys move when it grows.
  const auto [owner, fresh_key] =
      pod_owner_.try_emplace(model::Text(scheduler::object_key(pod.metadata)), id);
  const model::Text key = owner->first;
  if (!fresh_key) {
    violation(k_, fmt::format("pod name reused while stored: {}", key));
    owner->second = id;
  }
  publish(model::PodCreated{id, key.str(), pod.replica_type.str(), pod.rank,
                            acc_.gpu_milli_of(*pod.requests)});
  j.pod_hints.push_back(watcher_->pod_created(pod, key, j.group_hint));
  j.pods.push_back(std::move(pod));
}

const model::ResourceList& Store::node_used(const std::string& node) const {
  static const model::ResourceList kNone;
  const NodeBook* b = book(node);
  return b ? b->used : kNone;
}

PodRef Store::bind_pod(const std::string& key, const std::string& node, std::int32_t gpu_slot,
                       SnapshotIds ids) {
  StoredJob& j = at(pod_owner_.at(key));
  Pod& p = pod_ref(j.id, key);
  NodeBook& book = books_.at(node);  // std::out_of_range for an unknown node, as nodes_.at threw
  if (!book.node) throw std::out_of_range("store: pod " + key + " bound to removed node " + node);
  const model::Node& n = *book.node;
  if (!n.ready || n.unschedulable)
    violation(k_, fmt::format("pod {} bound to unavailable node {}", key, node));
  p.node_name = node;
  p.bind_time = k_.now();
  const std::int32_t share = model::share_of(*p.requests);
  if (share > 0) {
    if (gpu_slot < 0)
      violation(k_, fmt::format("shared-GPU pod {} bound to {} without a GPU slot", key, node));
    p.gpu_index = gpu_slot;
    auto& slots = book.shares;
    const auto slot = static_cast<std::size_t>(gpu_slot);
    if (slots.size() <= slot) slots.resize(slot + 1, 0);
    slots[slot] += share;
    if (slots[slot] > model::kGpuMilliPerGpu)
      violation(k_, fmt::format("GPU slot {} of node {} over-committed ({} milli) by binding {}",
                                gpu_slot, node, slots[slot], key));
  }
  if (!j.queue.empty()) {
    auto& used = used_by_queue(j.queue);
    if (share > 0)
      model::add_resources(used, model::queue_view(*p.requests));
    else
      model::add_resources(used, *p.requests);  // not through a ?: that would copy the requests
  }
  watcher_->pod_bound(key, node, share > 0 ? gpu_slot : -1, ids);
  book.pods.push_back(key);  // bound once: the scheduler binds pending pods only
  publish(model::PodBound{j.id, key, node, acc_.gpu_milli_of(*p.requests), j.queue.str()});
  // No node over-allocated (issue 6 §8). Shares count as the GPUs they sit on: whole GPUs plus
  // used slots within the node's GPUs.
  auto& used = book.used;
  model::add_resources(used, *p.requests);
  bool fits = true;
  if (used.count(model::kGpuMilliName) == 0) {
    fits = model::fits(used, n.allocatable);
  } else {
    model::ResourceList need = used;
    need.erase(model::kGpuMilliName);
    // Shares sit on nvidia.com/gpu (docs/scheduler.md "Shared GPUs"): its whole GPUs and used
    // slots.
    need[model::kGpuName] = model::Quantity::from_units(
        model::get_resource(used, model::kGpuName).units_ceil() + book.used_slots());
    fits = model::fits(need, n.allocatable);
  }
  if (!fits) violation(k_, fmt::format("node {} over-allocated by binding {}", node, key));
  return {j.id, &p};
}

void Store::set_pod_running(JobId id, const std::string& key) {
  Pod& p = pod_ref(id, key);
  p.phase = PodPhase::Running;
  p.start_time = k_.now();
  // Running and bound are the same to the scheduler: the watcher is not told.
  publish(model::PodRunning{id, key});
}

void Store::set_pod_unknown(JobId id, const std::string& key) {
  pod_ref(id, key).phase = PodPhase::Unknown;
}

void Store::release(StoredJob& j, Pod& p, const std::string& key) {
  if (p.node_name.empty()) return;
  const std::string_view node = p.node_name;
  const auto it = books_.find(node);
  if (it == books_.end()) return;
  NodeBook& book = it->second;
  const auto held = std::find(book.pods.begin(), book.pods.end(), key);
  if (held == book.pods.end()) return;
  if (held + 1 != book.pods.end())
    *held = std::move(book.pods.back());  // pods_on restores the order
  book.pods.pop_back();
  const std::int32_t share = model::share_of(*p.requests);
  if (!j.queue.empty()) {
    auto& used = used_by_queue(j.queue);
    if (share > 0)
      model::subtract_from(used, model::queue_view(*p.requests));
    else
      model::subtract_from(used, *p.requests);
  }
  if (share > 0 && p.gpu_index >= 0) book.shares[static_cast<std::size_t>(p.gpu_index)] -= share;
  model::subtract_from(book.used, *p.requests);
  publish(model::PodReleased{j.id, key, p.node_name.str(), acc_.gpu_milli_of(*p.requests),
                             j.queue.str(), p.phase, p.exit_code, p.deletion_reason,
                             p.bind_time.value_or(model::SimTime{})});
  watcher_->pod_released(key);
}

bool Store::terminate_pod(JobId id, const std::string& key, PodPhase phase,
                          std::int32_t exit_code) {
  Pod* p = find(id, key);
  if (!p || terminated(*p)) return false;
  StoredJob& j = at(id);
  p->phase = phase;
  p->exit_code = exit_code;
  p->finish_time = k_.now();
  release(j, *p, key);
  watcher_->pod_terminated(key, phase == PodPhase::Succeeded, hint_of(j, *p));
  return true;
}

const Pod& Store::mark_deleted(JobId id, const std::string& key, model::DeletionReason reason) {
  Pod& p = pod_ref(id, key);
  publish(model::PodDeleted{id, key, reason});
  p.deletion_timestamp = k_.now();
  p.deletion_reason = reason;
  return p;
}

void Store::set_terminating(JobId id, const std::string& key) {
  StoredJob& j = at(id);
  const Pod* p = find(id, key);
  watcher_->pod_terminating(key, p ? hint_of(j, *p) : -1);
}

void Store::set_deletion_reason(JobId id, const std::string& key, model::DeletionReason reason) {
  pod_ref(id, key).deletion_reason = reason;
}

void Store::remove_pod(JobId id, const std::string& key) {
  StoredJob& j = at(id);
  auto it = std::find_if(j.pods.begin(), j.pods.end(),
                         [&](const Pod& p) { return model::is_key_of(p.metadata, key); });
  if (it == j.pods.end()) return;
  release(j, *it, key);
  remember_generation(j, *it);
  watcher_->pod_removed(key);
  pod_owner_.erase(key);
  j.pod_hints.erase(j.pod_hints.begin() + (it - j.pods.begin()));
  j.pods.erase(it);
}

}  // namespace t9k::sim
