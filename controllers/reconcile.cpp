// One reconcile of a job (reconcile_job): the previous status carried over, the replica slots
// observed, then the stages in the order the spec orders them: a finished job only cleans up; a
// paused one stops its pods; the deadline; each slot's restart decision; the job's verdict; and
// for a live job its PodGroup, its missing pods, its elastic membership and its phase.
//
// Performance notes (docs/performance.md "Controllers"): the world reconciles a job after every
// pod change, so this step is on the simulator's hot path and dominated by allocation. It builds
// the result's strings once (slot names are moved into the status, not copied), formats messages
// into stack buffers and assigns them into the previous status's strings, indexes pods in one
// sorted vector instead of std::map, compares the PodGroup spec in place and builds one pod per
// replica type that is then copied per rank. tests/controllers/equivalence_tests.cpp holds its
// results to the recorded results of the straightforward version.
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "controllers/detail/slots.hpp"

namespace t9k::controllers::detail {

namespace {

// A pod of the job, indexed by name (sorted; see Reconcile::observe).
struct NamedPod {
  std::string_view name;
  const Pod* pod = nullptr;
  std::size_t type_index = 0;  // the first replica type named like the pod's; types.size() if none
};

// Counted restarts of a replica type: before this step and after its decisions (§11 Q3).
struct TypeRestarts {
  std::int32_t prev = 0;
  std::int32_t now = 0;
};

class Reconcile {
 public:
  Reconcile(const JobView& v, const ReconcileInput& in);
  ReconcileResult run();

 private:
  // Replica slots = desired ranks plus ranks that still have a pod (§1.3).
  void observe();
  void observe_type(std::size_t ti, std::vector<std::pair<std::int32_t, const Pod*>>& extra);
  // Pause (§7.2): graceful deletion of every pod; the deadline clock stops (§11 Q6).
  void pause();
  // Resume (§7.2): Resuming until all replicas are back; the clock restarts.
  void resume();
  // activeDeadlineSeconds (§6.1, §11 Q6).
  void deadline();
  // Per-slot restart decisions, in slot order (the shared budget is spent in that order).
  void restart_decisions();
  void restart_decision(Slot& s, bool kubeflow_rule);
  // ReplicaFailure (§1.2): True once any pod has exited non-zero; it stays True.
  void replica_failure();
  // The job finished now: its terminal conditions and cleanup.
  ReconcileResult conclude();
  // §8.1: one PodGroup named after the job, before its pods.
  void pod_group();
  // §4.3, §5, §11 Q8: a scale event restarts training on the surviving pods.
  void elastic_membership();
  // Initialized, ReplicaFailure False and, once the pods run, Running (§11 Q1).
  void live_conditions();
  // The result: actions, then the status built from the slots (counters of this step's
  // restarts kept only with `commit_counters`).
  ReconcileResult finish(bool commit_counters);
  void actions();
  void status(bool commit_counters);
  void tensorboard();
  void requeue_in(SimDuration d) { requeue_ = requeue_ ? std::min(*requeue_, d) : d; }
  // The job as the owner of its PodGroup and pods: one list they share, made at first use.
  const model::OwnerReferences& owners();

  const JobView& v_;
  const ReconcileInput& in_;
  const ControllerOptions& opt_;
  const SimTime now_;
  const model::Text& job_;
  const JobStatus& prev_;
  ReconcileResult res_;
  JobStatus& st_;
  boost::container::small_vector<NamedPod, 8> by_name_;
  Slots slots_;
  boost::container::small_vector<TypeRestarts, 4> type_restarts_;
  std::vector<std::string_view> stray_pods_;  // pods of a replica type no longer in the spec
  std::optional<Verdict> verdict_;
  std::optional<SimDuration> requeue_;
  std::optional<model::OwnerReferences> owners_;
  std::int32_t backoff_ = 0;
  const Pod* backoff_limit_pod_ = nullptr;  // §11 Q4 Kubeflow option fired
  const Pod* first_failed_pod_ = nullptr;
};

Reconcile::Reconcile(const JobView& v, const ReconcileInput& in)
    : v_(v),
      in_(in),
      opt_(in.options),
      now_(in.now),
      job_(v.meta->name),
      prev_(*v.status),
      st_(res_.status),
      type_restarts_(v.types.size()) {
  // The previous status except its tasks, which finish() rebuilds from the slots: copying them
  // only to clear them was a large share of a reconcile's allocations.
  st_.phase = prev_.phase;
  // Room for two more conditions (a reconcile rarely inserts more; then it reallocates): the
  // status is kept in the job, and room for all six types in every waiting job was 4 MB of the
  // backlog's peak (issue 49). Room for one more saved 0.4 MB more and cost philly-20k 0.4 %
  // more instructions in reallocations.
  st_.conditions.reserve(prev_.conditions.size() + 2);
  st_.conditions.assign(prev_.conditions.begin(), prev_.conditions.end());
  st_.aggregate = prev_.aggregate;
  st_.backoff_count = prev_.backoff_count;
  st_.tensorboard = prev_.tensorboard;
  st_.start_time = prev_.start_time;
  st_.completion_time = prev_.completion_time;
  st_.active_since = prev_.active_since;
  st_.elastic_replicas = prev_.elastic_replicas;

  if (!st_.phase) {  // first reconcile: the deadline clock starts (§11 Q6)
    st_.phase = JobPhase::Pending;
    st_.start_time = now_;
    st_.active_since = now_;
  }
  if (v_.has_backoff_limit && !st_.backoff_count) st_.backoff_count = 0;
  if (!v_.has_backoff_limit) st_.backoff_count.reset();  // GenericJob has no backoffCount (§1.3)
}

ReconcileResult Reconcile::run() {
  observe();
  // Terminal phases never change; cleanup continues until done (§1.1, §6.2).
  if (model::is_terminal(*st_.phase)) {
    const auto* failed = find_condition(st_, JobConditionType::Failed);
    const bool deadline =
        failed && failed->status == ConditionStatus::True && failed->reason == "DeadlineExceeded";
    terminal_deletions(slots_, v_.clean_up, deadline);
    return finish(false);
  }
  if (v_.run_mode->pause.enabled) {
    pause();
    return finish(false);
  }
  if (*st_.phase == JobPhase::Paused) resume();
  deadline();
  restart_decisions();
  replica_failure();
  // Job-level decision: rules are not evaluated in debug mode (§7.1, §11 Q19).
  if (!verdict_ && !v_.run_mode->debug.enabled) {
    verdict_ = v_.kind == model::JobKind::GenericJob
                   ? decide_generic(v_, slots_)
                   : decide_master(v_, slots_, opt_, backoff_limit_pod_);
  }
  if (verdict_) return conclude();
  if (v_.has_backoff_limit) st_.backoff_count = backoff_;
  // Non-terminal: PodGroup, creations, elastic membership, phase.
  pod_group();
  for (auto& s : slots_) s.create = s.desired && s.outcome == Outcome::Missing;
  elastic_membership();
  live_conditions();
  res_.requeue_after = requeue_;
  return finish(true);
}

void Reconcile::observe() {
  // The job's pods by name: sorted by (name, position in the input) and deduplicated keeping the
  // first, i.e. what std::map::emplace in input order gives, without a node per pod.
  by_name_.reserve(in_.pods.size());
  for (const Pod& p : in_.pods) {
    if (p.job_name != job_) continue;
    std::size_t ti = 0;
    while (ti < v_.types.size() && v_.types[ti].type != p.replica_type) ++ti;
    by_name_.push_back({p.metadata.name, &p, ti});
  }
  std::sort(by_name_.begin(), by_name_.end(), [](const NamedPod& a, const NamedPod& b) {
    return a.name != b.name ? a.name < b.name
                            : a.pod < b.pod;  // the span is contiguous: address = order
  });
  by_name_.erase(std::unique(by_name_.begin(), by_name_.end(),
                             [](const NamedPod& a, const NamedPod& b) { return a.name == b.name; }),
                 by_name_.end());

  std::size_t desired_slots = 0;
  for (const auto& t : v_.types) desired_slots += static_cast<std::size_t>(std::max(t.replicas, 0));
  slots_.reserve(desired_slots);  // slots beyond the desired ranks (scale-down) are rare
  for (const auto& [name, p, type_index] : by_name_) {
    if (type_index == v_.types.size() && !terminating(*p)) stray_pods_.push_back(name);
  }
  std::vector<std::pair<std::int32_t, const Pod*>> extra;  // (rank, pod) beyond the desired ranks
  for (std::size_t ti = 0; ti < v_.types.size(); ++ti) observe_type(ti, extra);
}

void Reconcile::observe_type(std::size_t ti,
                             std::vector<std::pair<std::int32_t, const Pod*>>& extra) {
  const TypeView& t = v_.types[ti];
  const auto find_pod = [&](std::string_view name) -> const Pod* {
    auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                               [](const NamedPod& a, std::string_view n) { return a.name < n; });
    return it != by_name_.end() && it->name == name ? it->pod : nullptr;
  };
  const model::TaskStatus* prev_task = nullptr;
  for (const auto& task : prev_.tasks) {
    if (task.type == t.type) prev_task = &task;
  }
  if (prev_task) type_restarts_[ti].prev = type_restarts_[ti].now = prev_task->restart_count;
  auto prev_restarts = [&](const std::string& name) {
    if (prev_task) {
      for (const auto& r : prev_task->replicas) {
        if (r.name == name) return r.restart_count;
      }
    }
    return 0;
  };
  // Pods of ranks beyond the desired ones, by rank; of several pods with one rank the first by
  // name counts (std::map::emplace in name order).
  extra.clear();
  std::size_t first_of_name = 0;  // pods of this type: NamedPod::type_index is the first such type
  while (v_.types[first_of_name].type != t.type) ++first_of_name;
  for (const auto& [name, p, type_index] : by_name_) {
    if (type_index == first_of_name && p->rank >= t.replicas) extra.emplace_back(p->rank, p);
  }
  std::sort(extra.begin(), extra.end(), [](const auto& a, const auto& b) {  // names are unique here
    return a.first != b.first ? a.first < b.first
                              : a.second->metadata.name < b.second->metadata.name;
  });
  extra.erase(std::unique(extra.begin(), extra.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              extra.end());
  for (std::int32_t rank = 0; rank < t.replicas; ++rank) {
    Slot& s = slots_.emplace_back();
    s.type_index = ti;
    s.rank = rank;
    s.name = replica_name(job_, t.type, rank);
    s.pod = find_pod(s.name);
    s.desired = true;
    s.prev_restarts = s.restarts = prev_restarts(s.name);
  }
  for (const auto& [rank, p] : extra) {
    Slot& s = slots_.emplace_back();
    s.type_index = ti;
    s.rank = rank;
    s.name = p->metadata.name;
    s.pod = p;
    s.prev_restarts = s.restarts = prev_restarts(s.name);
  }
}

void Reconcile::pause() {
  for (auto& s : slots_) {
    if (s.pod && !terminating(*s.pod)) s.del = DeletionReason::Pause;
  }
  st_.phase = JobPhase::Paused;
  st_.active_since.reset();
  set_condition(st_, JobConditionType::Paused, ConditionStatus::True, fixed("Paused"),
                fixed("All replicas are deleted or being deleted."), now_);
  if (auto* c = find_condition(st_, JobConditionType::Running);
      c && c->status == ConditionStatus::True) {
    set_condition(st_, JobConditionType::Running, ConditionStatus::False, fixed("Paused"),
                  fixed("The job is paused."), now_);
  }
}

void Reconcile::resume() {
  st_.phase = JobPhase::Resuming;
  st_.active_since = now_;  // §11 Q6: the clock restarts on resume (Kubeflow reset)
  set_condition(st_, JobConditionType::Paused, ConditionStatus::False, fixed("Resumed"),
                fixed("The job is resuming."), now_);
}

void Reconcile::deadline() {
  if (!v_.active_deadline_seconds || !st_.active_since) return;
  const SimTime deadline = *st_.active_since + std::chrono::seconds(*v_.active_deadline_seconds);
  if (now_ >= deadline) {
    verdict_ =
        Verdict{JobPhase::Failed, fixed("DeadlineExceeded"),
                fmt::format("{} {} has failed because it was active longer than specified deadline",
                            v_.kind_name, job_)};
  } else {
    requeue_in(deadline - now_);
  }
}

void Reconcile::restart_decisions() {
  backoff_ = st_.backoff_count.value_or(0);
  const bool kubeflow_rule =
      opt_.backoff_limit_rule == ControllerOptions::BackoffLimitRule::KubeflowReachLimit;
  for (auto& s : slots_) restart_decision(s, kubeflow_rule);
}

void Reconcile::restart_decision(Slot& s, bool kubeflow_rule) {
  const TypeView& t = v_.types[s.type_index];
  if (!s.pod) {
    s.outcome = Outcome::Missing;
    return;
  }
  const Pod& p = *s.pod;
  if (p.phase == PodPhase::Failed && !first_failed_pod_) first_failed_pod_ = &p;
  if (terminating(p)) {
    s.outcome = Outcome::Terminating;
    return;
  }
  if (!s.desired) {  // §4.3: scale-down deletes the highest ranks
    s.outcome = Outcome::ScaledDown;
    s.del = DeletionReason::ScaleDown;
    return;
  }
  if (p.phase == PodPhase::Pending || p.phase == PodPhase::Running ||
      p.phase == PodPhase::Unknown) {
    s.outcome = Outcome::Active;
    return;
  }
  const bool failed = p.phase == PodPhase::Failed;
  if (failed && p.deletion_reason == DeletionReason::MaxDuration) {  // §11 Q12
    if (opt_.max_duration == ControllerOptions::MaxDurationHandling::Recreate) {
      s.outcome = Outcome::Recreate;
      s.del = DeletionReason::Restart;
    } else {
      s.outcome = Outcome::FailedFinal;
    }
    return;
  }
  const Outcome final_outcome = failed ? Outcome::FailedFinal : Outcome::SucceededFinal;
  if (!policy_restarts(t.policy, p, opt_)) {
    s.outcome = final_outcome;
    return;
  }
  // Budget: GenericJob limit per rank or type (§2.3, §11 Q3); backoffLimit shared by the job.
  const bool uses_backoff = v_.has_backoff_limit && !(t.policy == RestartPolicyType::ExitCode &&
                                                      opt_.exit_code_ignores_backoff_limit);
  bool budget = true;
  if (v_.kind == model::JobKind::GenericJob) {
    const std::int32_t used =
        opt_.generic_limit_scope == ControllerOptions::GenericLimitScope::PerReplica
            ? s.restarts
            : type_restarts_[s.type_index].now;
    budget = used < t.limit;
  } else if (uses_backoff) {
    budget = backoff_ < v_.backoff_limit;  // §11 Q4 boundary
  }
  if (!budget) {
    s.outcome = final_outcome;  // the master failing now fails the job (§2.3)
    if (failed && uses_backoff && kubeflow_rule && !backoff_limit_pod_) backoff_limit_pod_ = &p;
    return;
  }
  if (opt_.restart_backoff) {  // §11 Q5
    const SimTime since = p.finish_time.value_or(now_);
    const SimTime at = since + backoff_delay(s.restarts, opt_);
    if (now_ < at) {
      s.outcome = Outcome::BackoffWait;
      requeue_in(at - now_);
      return;
    }
  }
  s.outcome = Outcome::Restart;
  s.del = DeletionReason::Restart;
  ++s.restarts;
  ++type_restarts_[s.type_index].now;
  if (uses_backoff) {
    ++backoff_;
    if (failed && kubeflow_rule && backoff_ >= v_.backoff_limit && !backoff_limit_pod_)
      backoff_limit_pod_ = &p;
  }
}

void Reconcile::replica_failure() {
  if (!first_failed_pod_) return;
  // Formatted on the stack and assigned into the condition's existing message: no allocation
  // when it is unchanged, which is the case on every reconcile after the first failure.
  fmt::memory_buffer msg;
  fmt::format_to(std::back_inserter(msg), "Pod[{}] exited with error code {}",
                 first_failed_pod_->metadata.name, exit_code_of(*first_failed_pod_));
  set_condition(st_, JobConditionType::ReplicaFailure, ConditionStatus::True, fixed("ErrorInPod"),
                std::string_view(msg.data(), msg.size()), now_);
}

ReconcileResult Reconcile::conclude() {
  // Restarts decided in this step are not carried out; only the Kubeflow limit rule keeps the
  // restart that reached the limit in the count (its restarts reached backoffLimit).
  const bool keep = verdict_->failed_reason == "BackoffLimitExceeded";
  st_.phase = verdict_->phase;
  st_.completion_time = now_;
  st_.active_since.reset();
  if (v_.has_backoff_limit) st_.backoff_count = keep ? backoff_ : prev_.backoff_count.value_or(0);
  apply_terminal_conditions(st_, *verdict_, now_);
  terminal_deletions(slots_, v_.clean_up, verdict_->failed_reason == "DeadlineExceeded");
  res_.requeue_after.reset();
  return finish(keep);
}

const model::OwnerReferences& Reconcile::owners() {
  if (!owners_) {
    owners_.emplace(
        {model::OwnerReference{model::Text::fixed(model::kBatchApiVersion),
                               model::Text::fixed(v_.kind_name), job_, v_.meta->uid, true}});
  }
  return *owners_;
}

void Reconcile::pod_group() {
  if (!v_.scheduler->t9k_scheduler) return;
  if (!in_.pod_group) {  // built in its action: a PodGroup is large
    model::PodGroup& pg =
        std::get<CreatePodGroup>(res_.actions.emplace_back(std::in_place_type<CreatePodGroup>))
            .pod_group;
    pg.metadata.name = job_;
    pg.metadata.namespace_ = v_.meta->namespace_;
    pg.metadata.creation_timestamp = now_;
    pg.metadata.owner_references = owners();
    pg.spec = desired_pod_group_spec(v_);
  } else if (!pod_group_spec_is_current(in_.pod_group->spec, v_)) {
    model::PodGroup pg = *in_.pod_group;  // metadata (creation time) unchanged, §11 Q20
    model::Text topology = std::move(pg.spec.topology_policy);
    pg.spec = desired_pod_group_spec(v_);
    pg.spec.topology_policy = std::move(topology);
    res_.actions.emplace_back(UpdatePodGroup{std::move(pg)});
  }
}

void Reconcile::elastic_membership() {
  if (!v_.elastic) return;
  std::int32_t target = 0;
  for (const auto& t : v_.types) target += t.replicas;
  if (st_.elastic_replicas && *st_.elastic_replicas != target) {
    RestartTraining rt;
    for (const auto& s : slots_) {
      if (s.desired && running_now(s)) rt.pods.push_back(s.name);
    }
    rt.replicas = target;
    rt.world_size = target * (v_.kind == model::JobKind::DeepSpeedJob ? v_.slots_per_worker : 1);
    rt.reason = target > *st_.elastic_replicas ? "ScaleUp" : "ScaleDown";
    if (!rt.pods.empty()) res_.actions.emplace_back(std::move(rt));
  }
  st_.elastic_replicas = target;
}

void Reconcile::live_conditions() {
  set_condition(st_, JobConditionType::Initialized, ConditionStatus::True, fixed(""),
                fixed("All sub-resources are created."), now_);
  if (!find_condition(st_, JobConditionType::ReplicaFailure)) {
    set_condition(st_, JobConditionType::ReplicaFailure, ConditionStatus::False, fixed(""),
                  fixed(kMsgAllRunning), now_);
  }
  if (*st_.phase != JobPhase::Pending && *st_.phase != JobPhase::Resuming) return;  // §11 Q1
  std::int32_t desired = 0, running = 0;
  bool master_running = false;
  for (const auto& s : slots_) {
    if (!s.desired) continue;
    ++desired;
    if (running_now(s)) {
      ++running;
      if (s.type_index == 0 && s.rank == 0) master_running = true;
    }
  }
  bool is_running = false;
  if (opt_.running_when == ControllerOptions::RunningWhen::MasterRunning) {
    is_running = master_running;
  } else if (v_.elastic) {
    is_running = running > 0 && running >= std::min(v_.elastic_min, desired);
  } else {
    is_running = desired > 0 && running == desired;
  }
  if (is_running) {
    st_.phase = JobPhase::Running;
    set_condition(st_, JobConditionType::Running, ConditionStatus::True, fixed("Running"),
                  fixed(kMsgAllRunning), now_);
  }
}

ReconcileResult Reconcile::finish(bool commit_counters) {
  actions();
  status(commit_counters);
  tensorboard();
  return std::move(res_);
}

void Reconcile::actions() {
  // Deletions, then creations (a name is free only once its old pod is gone). Built before the
  // status so that the slot names can then be moved into the replica statuses. Reserved
  // exactly: an Action holds a whole Pod (growing would move them), and an over-sized block of
  // two or more Actions is a large request, which makes glibc's malloc consolidate its fast bins.
  std::size_t more = stray_pods_.size();
  for (const auto& s : slots_) more += (s.del ? 1 : 0) + (s.create ? 1 : 0);
  if (v_.tensorboard && !in_.tensorboard && !model::is_terminal(*st_.phase))
    ++more;  // CreateTensorBoard
  res_.actions.reserve(res_.actions.size() + more);
  for (const auto& name : stray_pods_)
    res_.actions.emplace_back(DeletePod{std::string(name), DeletionReason::ScaleDown});
  for (const auto& s : slots_) {
    if (s.del) res_.actions.emplace_back(DeletePod{s.name, *s.del});
  }
  const bool resumed = find_condition(st_, JobConditionType::Paused) != nullptr;
  // One pod per replica type, copied for each rank created and moved into the type's last one
  // (a type's slots are contiguous, so it is empty again when the next type starts); a type
  // with one pod to create builds it in its action.
  std::optional<Pod> type_pod;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (!s.create) continue;
    bool last_of_type = true;
    for (std::size_t j = i + 1; j < slots_.size() && slots_[j].type_index == s.type_index; ++j) {
      last_of_type = last_of_type && !slots_[j].create;
    }
    Pod& p = std::get<CreatePod>(res_.actions.emplace_back(std::in_place_type<CreatePod>)).pod;
    if (!type_pod && last_of_type) {
      make_pod(p, v_, v_.types[s.type_index], owners(), resumed);
    } else {
      if (!type_pod) make_pod(type_pod.emplace(), v_, v_.types[s.type_index], owners(), resumed);
      p = last_of_type ? std::move(*type_pod) : *type_pod;
      if (last_of_type) type_pod.reset();
    }
    name_pod(p, s.name, s.rank);
  }
}

void Reconcile::status(bool commit_counters) {
  // Tasks with replica statuses, and the aggregate counted from them (§1.3).
  st_.tasks.clear();
  st_.tasks.reserve(v_.types.size());
  st_.aggregate = {};
  for (std::size_t ti = 0; ti < v_.types.size(); ++ti) {
    model::TaskStatus& task = st_.tasks.emplace_back();
    task.type = v_.types[ti].type;
    task.restart_count = commit_counters ? type_restarts_[ti].now : type_restarts_[ti].prev;
    task.replicas.reserve(static_cast<std::size_t>(std::count_if(
        slots_.begin(), slots_.end(), [&](const Slot& s) { return s.type_index == ti; })));
    for (auto& s : slots_) {
      if (s.type_index != ti) continue;
      model::ReplicaStatus& r = task.replicas.emplace_back();
      r.name = s.name;  // a Text: in place up to 16 characters (a pod name), else one block
      if (s.pod && !s.create) r.uid = s.pod->metadata.uid;
      r.phase = replica_phase(s);
      fill_container_status(r.containers, s, v_);
      r.restart_count = commit_counters ? s.restarts : s.prev_restarts;
      switch (r.phase) {
        case ReplicaPhase::Creating:
          ++st_.aggregate.creating;
          break;
        case ReplicaPhase::Pending:
          ++st_.aggregate.pending;
          break;
        case ReplicaPhase::Running:
          ++st_.aggregate.running;
          break;
        case ReplicaPhase::Succeeded:
          ++st_.aggregate.succeeded;
          break;
        case ReplicaPhase::Failed:
          ++st_.aggregate.failed;
          break;
        case ReplicaPhase::Unknown:
          ++st_.aggregate.unknown;
          break;
        case ReplicaPhase::Deleted:
          ++st_.aggregate.deleted;
          break;
      }
    }
  }
}

void Reconcile::tensorboard() {
  // TensorBoard dependent (§9): its state never affects the phase.
  if (!v_.tensorboard || (!in_.tensorboard && model::is_terminal(*st_.phase))) return;
  model::DependentStatus d;
  d.name = job_;
  d.dependent = {"tensorstack.dev/v1beta1", "TensorBoard", job_.str(), v_.meta->namespace_.str(),
                 in_.tensorboard ? in_.tensorboard->uid : std::string{}};
  d.type = "Normal";
  if (!in_.tensorboard) {  // created while the job is live only
    res_.actions.emplace_back(CreateTensorBoard{
        job_.str(), v_.meta->namespace_.str(), *v_.tensorboard,
        model::OwnerReference{model::Text::fixed(model::kBatchApiVersion),
                              model::Text::fixed(v_.kind_name), job_, v_.meta->uid, true}});
    d.action = "Create";
    d.reason = "DependentCreating";
    d.note = fmt::format("TensorBoard [{}] is being created", job_);
  } else {
    d.action = "NOP";
    d.ready = in_.tensorboard->ready;
    d.reason = d.ready ? "DependentReady" : "DependentNotReady";
    d.note = fmt::format("TensorBoard [{}] is {}", job_, d.ready ? "ready" : "not ready");
  }
  st_.tensorboard = std::move(d);
}

}  // namespace

ReconcileResult reconcile_job(const JobView& v, const ReconcileInput& in) {
  return Reconcile(v, in).run();
}

}  // namespace t9k::controllers::detail
