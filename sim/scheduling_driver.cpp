#include "sim/scheduling_driver.hpp"
#include "model/accelerators.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace t9k::sim {

SchedulingDriver::SchedulingDriver(const scenarios::Scenario& scenario,
                                   const WorldSettings& settings, kernel::Kernel& kernel,
                                   Store& store, PodLifecycle& pods, ReconcileQueue& reconciles)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      store_(store),
      pods_(pods),
      reconciles_(reconciles),
      sched_(settings.scheduler_options) {}

void SchedulingDriver::handle(const kernel::DispatchedEvent& e) {
  if (e.kind != kCycle) return;
  if (e.key == 1) max_duration_at_ = kernel::kTimeMax;  // the maxDuration timer fired
  cycle();
}

void SchedulingDriver::add_queues() {
  for (const auto& q : sc_.scheduler.queues) store_.add_queue(q);
  if (!store_.queue(model::kDefaultQueue)) {
    model::Queue q;
    q.metadata.name = model::kDefaultQueue;
    store_.add_queue(q);
  }
}

void SchedulingDriver::request_cycle() {
  if (cycle_pending_) return;
  cycle_pending_ = true;
  k_.post_in(st_.scheduling_latency, kPhaseScheduler, kCycle, 0);
}

std::optional<scheduler::Rejection> SchedulingDriver::admit(JobId id) const {
  const StoredJob& j = store_.job(id);
  if (j.queue.empty()) return std::nullopt;  // the default scheduler admits everything
  return sched_.admit(snap_,
                      scheduler::AdmissionRequest{j.key.str(), j.queue.str(), *j.shape.requests});
}

std::int32_t SchedulingDriver::pod_group_changed(const model::PodGroup& group, std::int32_t hint) {
  const scheduler::GroupId g = snap_.upsert_pod_group(group, hint);
  request_cycle();
  return g;
}

std::int32_t SchedulingDriver::pod_created(const model::Pod& pod, const model::Text& key,
                                           std::int32_t group_hint) {
  const scheduler::PodId p = snap_.upsert_pod(pod, key, group_hint);
  request_cycle();
  return p;
}

void SchedulingDriver::pod_released(const std::string&) { request_cycle(); }

void SchedulingDriver::pin(JobId job, std::vector<std::pair<std::string, std::string>> pods) {
  pins_[job] = std::move(pods);
  request_cycle();
}

// Pinned jobs (the export's running jobs) bound where they ran, before the scheduler sees them,
// as kube-scheduler leaves a pod whose spec.nodeName is set. All of a job's pods or none, so a
// gang is never split; a job whose pods are not all created yet waits for the next cycle.
void SchedulingDriver::bind_pinned() {
  for (auto it = pins_.begin(); it != pins_.end();) {
    const JobId id = it->first;
    const StoredJob& j = store_.job(id);
    std::vector<const model::Pod*> pods;
    for (const auto& p : j.pods) {
      if (live(p) && p.node_name.empty()) pods.push_back(&p);
    }
    if (pods.empty() && !j.compacted && !j.rejected && j.submitted) {
      ++it;  // its controller has not created its pods yet
      continue;
    }
    std::string why;
    std::map<std::string, model::ResourceList> added;        // per node, this job's pods so far
    std::vector<std::pair<std::string, std::string>> binds;  // (pod key, node)
    for (const model::Pod* p : pods) {
      const auto pin = std::find_if(it->second.begin(), it->second.end(),
                                    [&](const auto& x) { return x.first == p->metadata.name; });
      const std::string key = model::object_key(p->metadata);
      if (pin == it->second.end()) {
        why = fmt::format("pod {} has no recorded node", p->metadata.name);
        break;
      }
      const model::Node* n = store_.node(pin->second);
      if (!n) {
        why = fmt::format("node {} of pod {} is not in the cluster", pin->second, p->metadata.name);
        break;
      }
      if (!n->ready || n->unschedulable) {
        why = fmt::format("node {} of pod {} is {}", pin->second, p->metadata.name,
                          n->ready ? "cordoned" : "not ready");
        break;
      }
      if (model::share_of(*p->requests) > 0) {
        why = fmt::format("pod {} shares a GPU (the scheduler picks its slot)", p->metadata.name);
        break;
      }
      model::ResourceList& mine = added[pin->second];
      model::add_resources(mine, *p->requests);
      model::ResourceList need = store_.node_used(pin->second);
      model::add_resources(need, mine);
      if (!model::fits(need, n->allocatable)) {
        why = fmt::format("pod {} does not fit on node {} beside the pods already there",
                          p->metadata.name, pin->second);
        break;
      }
      binds.emplace_back(key, pin->second);
    }
    if (!why.empty()) {
      notes_.push_back(
          fmt::format("{} was not placed as recorded ({}): the scheduler placed it", j.key, why));
    } else {
      if (!binds.empty()) placed(id);
      for (const auto& [key, node] : binds) {
        const auto [owner, p] = store_.bind_pod(key, node, -1);
        pods_.pod_running_at_start(owner, key, p->generation);
      }
      if (!binds.empty()) reconciles_.enqueue(id);
    }
    it = pins_.erase(it);
  }
}

void SchedulingDriver::cycle() {
  cycle_pending_ = false;
  ++cycles_;
  if (!pins_.empty()) bind_pinned();
  const scheduler::Decisions d = sched_.schedule(snap_, k_.now());
  catch_up(d.caught_up);  // before placed() publishes a last reason
  // Gangs being admitted in this cycle: T9k groups with no member bound before it. A running
  // group that lost members gets its replacements one by one (§11 Q10), so only admissions
  // must reach minMember at once.
  std::set<JobId> admitted;
  for (const auto& b : d.bindings) {
    const auto [id, p] = store_.locate(b.pod);
    if (!p->pod_group.empty() && store_.bound_members(id) == 0) admitted.insert(id);
    placed(id);
  }
  for (const auto& b : d.bindings) {
    const auto [id, p] = store_.bind_pod(b.pod, b.node, b.gpu_slot, {b.pod_id, b.node_id});
    pods_.pod_bound(id, b.pod, p->generation);
    reconciles_.enqueue(id);
  }
  check_after_bindings(d, admitted);
  note_pending(d.pending);
  for (const auto& e : d.evictions) {
    const auto [id, p] = store_.locate(e.pod);
    if (e.reason == model::DeletionReason::MaxDuration) {
      // §11 Q12 and the controller contract: kept, reported Failed with reason MaxDuration.
      store_.set_deletion_reason(id, e.pod, model::DeletionReason::MaxDuration);
      pods_.terminate(id, e.pod, model::PodPhase::Failed, 137, model::LossCause::MaxDuration);
    } else {
      pods_.delete_pod(id, p->metadata.name, e.reason);
      // Reserve what the preemptor waits for, so lower-priority pods recreated meanwhile do
      // not take it (nomination, docs/scheduler.md).
      if (e.reason == model::DeletionReason::Preemption && !e.preemptor.empty()) {
        snap_.nominate(e.preemptor, e.reservations);
      }
    }
    reconciles_.enqueue(id);
  }
  arm_max_duration();
}

SchedulingDriver::Waiting& SchedulingDriver::waiting(JobId id) {
  if (waiting_slot_.size() <= id) waiting_slot_.resize(static_cast<std::size_t>(id) + 1, kNoSlot);
  std::uint32_t& slot = waiting_slot_[id];
  if (slot == kNoSlot) slot = waiting_.acquire();
  return waiting_[slot];
}

void SchedulingDriver::publish_pending(JobId id, Waiting& w) {
  if (w.message.empty()) w.message = messages_.share(scheduler::describe(w.last, snap_));
  store_.publish(model::JobPending{id, w.last.cause, w.message});
  w.dirty = false;
}

// A job is waiting while none of its pods is bound. The scheduler reports the workloads whose
// reason changed (or that were not pending in the cycle before); the feed gets a JobPending when
// the cause changes or a new wait begins (placed before, paused, or new). Messages in between
// are kept as counts and formatted only if they turn out to be the last (placed, finish).
void SchedulingDriver::note_pending(const std::vector<scheduler::PendingReason>& reasons) {
  for (const auto& r : reasons) {
    const auto owner = owner_of(r);
    if (!owner || store_.bound_members(*owner) > 0) continue;
    Waiting& w = waiting(*owner);
    if (w.cycle == cycles_)
      continue;  // one reason per job and cycle (default-scheduler jobs: its first pod's)
    w.cycle = cycles_;
    const bool new_cause = !w.active || !r.continued || w.last.cause != r.cause;
    w.active = true;
    w.last = r;
    w.message = {};
    // A strict-FIFO reason names the group ahead, whose id may be reused once it is gone.
    if (r.cause == model::PendingCause::QueueOrder)
      w.message = messages_.share(scheduler::describe(r, snap_));
    if (new_cause)
      publish_pending(*owner, w);
    else
      w.dirty = true;
    // A published wait whose reason since is still a capacity one: until its cause changes only
    // its last reason is used (placed, finish), so the scheduler may pass it by and give that
    // reason when it next looks at it (ClusterSnapshot::set_lazy, issue 49).
    const bool lazy = w.dirty && w.last.cause == model::PendingCause::Capacity;
    if (r.group != scheduler::kNone && lazy != w.lazy)
      w.lazy = snap_.set_lazy(r.group, r.sequence, lazy);
  }
}

// A lazy job's reason in a cycle that passed it by: its last reason, not published (its cause is
// the published one).
void SchedulingDriver::catch_up(const std::vector<scheduler::PendingReason>& reasons) {
  for (const auto& r : reasons) {
    const auto owner = owner_of(r);
    Waiting* w = owner ? waiting_of(*owner) : nullptr;
    if (!w || !w->active) continue;
    w->last = r;
    w->message = {};
  }
}

// The job a reason is about: a T9k group's by its first pod, a default-scheduler pod's own. A
// deep queue reports its waiting groups again at every change of capacity, so a group's job is
// remembered by its snapshot id and creation sequence (ids are reused, sequences are not; a
// group never changes jobs) instead of looking its pod's key up each time (issue 49).
std::optional<JobId> SchedulingDriver::owner_of(const scheduler::PendingReason& r) {
  scheduler::PodId pod = r.pod;
  GroupOwner* known = nullptr;
  if (r.group != scheduler::kNone) {
    const auto g = static_cast<std::size_t>(r.group);
    if (group_owner_.size() <= g) group_owner_.resize(g + 1);
    known = &group_owner_[g];
    if (known->sequence == r.sequence && known->job) return known->job;
    const auto& pods = snap_.groups()[g].pods;
    pod = pods.empty() ? scheduler::kNone : pods.front();
  }
  if (pod == scheduler::kNone) return std::nullopt;
  const auto owner = store_.owner_of(snap_.pods()[static_cast<std::size_t>(pod)].key);
  if (known && owner) *known = GroupOwner{r.sequence, owner};
  return owner;
}

const SchedulingDriver::Waiting* SchedulingDriver::waiting_of(JobId id) const {
  return id < waiting_slot_.size() && waiting_slot_[id] != kNoSlot ? &waiting_[waiting_slot_[id]]
                                                                   : nullptr;
}

std::optional<model::PendingCause> SchedulingDriver::pending_cause(JobId id) const {
  const Waiting* w = waiting_of(id);
  return w && w->active ? std::optional(w->last.cause) : std::nullopt;
}

void SchedulingDriver::placed(JobId id) {
  Waiting* found = waiting_of(id);
  if (!found) return;
  Waiting& w = *found;
  if (w.dirty) publish_pending(id, w);
  // The wait is over: a later one of the same group (a replacement pod) is published anew.
  if (w.lazy) snap_.set_lazy(w.last.group, w.last.sequence, false);
  waiting_.release(waiting_slot_[id]);
  waiting_slot_[id] = kNoSlot;
}

void SchedulingDriver::finish() {
  catch_up(sched_.lazy_reasons(snap_));
  for (JobId id = 0; id < waiting_slot_.size(); ++id) {
    Waiting* w = waiting_of(id);
    if (!w || !w->active || !w->dirty) continue;
    const StoredJob& j = store_.job(id);
    const auto& phase =
        j.compacted ? std::optional<model::JobPhase>{} : model::status_of(j.job).phase;
    if (!j.compacted && !(phase && model::is_terminal(*phase))) publish_pending(id, *w);
  }
}

void SchedulingDriver::arm_max_duration() {
  const auto next = snap_.next_max_duration_expiry();
  if (!next || *next == max_duration_at_) return;
  if (*next > SimTime{sc_.horizon}) return;
  k_.cancel(max_duration_ev_);
  max_duration_at_ = std::max(*next, k_.now());
  max_duration_ev_ = k_.post_at(max_duration_at_, kPhaseScheduler, kCycle, 1);
}

void SchedulingDriver::check_after_bindings(const scheduler::Decisions& d,
                                            const std::set<JobId>& admitted) {
  // No gang partially bound: a PodGroup admitted in this cycle has at least minMember pods bound.
  // In job-key order, so the first violation reported does not depend on ids.
  std::vector<const StoredJob*> jobs;  // the admitted jobs' records, without copying their keys
  jobs.reserve(admitted.size());
  for (JobId id : admitted) jobs.push_back(&store_.job(id));
  std::sort(jobs.begin(), jobs.end(),
            [](const StoredJob* a, const StoredJob* b) { return a->key < b->key; });
  for (const StoredJob* job : jobs) {
    const StoredJob& j = *job;
    const model::Text& key = j.key;
    if (!j.pod_group) continue;
    const std::int32_t members = store_.bound_members(j.id);
    if (members < j.pod_group->spec.min_member && !st_.scheduler_options.permit.empty()) {
      violation(k_, fmt::format("gang {} partially bound: {} of minMember {}", key, members,
                                j.pod_group->spec.min_member));
    }
  }
  // No queue over quota (T9k, gate-at-scheduling).
  if (st_.scheduler_options.quota_mode != scheduler::QuotaMode::GateAtScheduling) return;
  std::vector<const model::Text*> queues_touched;  // the jobs' own queue names, in name order
  for (const auto& b : d.bindings) {
    const StoredJob& j = store_.job(*store_.owner_of(b.pod));
    if (!j.queue.empty()) queues_touched.push_back(&j.queue);
  }
  const auto by_name = [](const model::Text* a, const model::Text* b) { return *a < *b; };
  std::sort(queues_touched.begin(), queues_touched.end(), by_name);
  const auto same = [](const model::Text* a, const model::Text* b) { return *a == *b; };
  queues_touched.erase(std::unique(queues_touched.begin(), queues_touched.end(), same),
                       queues_touched.end());
  for (const model::Text* qname : queues_touched) {
    const model::Queue* q = store_.queue(qname->str());
    if (!q || !q->spec.quota) continue;
    if (!model::within_limits(store_.queue_used(qname->str()), *q->spec.quota)) {
      violation(k_, "queue " + qname->str() + " over quota");
    }
  }
}

}  // namespace t9k::sim
