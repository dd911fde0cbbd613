#include "sim/policy_driver.hpp"

#include <fmt/format.h>

#include "sim/store.hpp"

namespace t9k::sim {

namespace {
// Event keys of kElasticPolicy: the periodic decision and one asked for (by the policy, or
// because an elastic job started or ended).
constexpr kernel::EventKey kPeriodic = 0;
constexpr kernel::EventKey kAsked = 1;
}  // namespace

PolicyDriver::PolicyDriver(const scenarios::Scenario& scenario, const WorldSettings& settings,
                           kernel::Kernel& kernel, Store& store, const TrainingControl& training,
                           ReconcileQueue& reconciles,
                           std::unique_ptr<policies::ElasticPolicy> policy,
                           const WaitReasons* reasons)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      store_(store),
      training_(training),
      reconciles_(reconciles),
      policy_(
          policy ? std::move(policy)
                 : policies::make_elastic_policy(settings.elastic_policy, settings.policy_options)),
      reasons_(reasons) {
  if (!policy_)
    throw ScenarioError("spec.controllers.options.elasticPolicy",
                        fmt::format("unknown policy '{}'", settings.elastic_policy));
}

void PolicyDriver::start() {
  if (policy_->decides()) k_.post_at(SimTime{}, kPhaseOps, kElasticPolicy, kPeriodic);
}

void PolicyDriver::handle(const kernel::DispatchedEvent& e) {
  if (e.kind != kElasticPolicy) return;
  if (e.key == kAsked) {
    asked_at_ = kernel::kTimeMax;
  } else if (k_.now() + st_.elastic_policy_period <= SimTime{sc_.horizon}) {
    k_.post_in(st_.elastic_policy_period, kPhaseOps, kElasticPolicy, kPeriodic);
  }
  decide();
}

void PolicyDriver::elastic_job_changed(JobId) {
  if (policy_->decides()) ask_at(k_.now());
}

// One asked-for decision is pending at a time, at the earliest time asked.
void PolicyDriver::ask_at(SimTime t) {
  if (t > SimTime{sc_.horizon} || t >= asked_at_) return;
  k_.cancel(asked_ev_);
  asked_at_ = t;
  asked_ev_ = k_.post_at(t, kPhaseOps, kElasticPolicy, kAsked);
}

void PolicyDriver::decide() {
  const policies::ElasticObservation o = observe(policy_->wants_details());
  const policies::ElasticDecisions answer = policy_->decide(o);
  std::map<JobId, const policies::ElasticObservation::Job*> allowed;
  for (const auto& j : o.jobs) allowed.emplace(j.id, &j);
  std::set<JobId> seen;
  for (std::size_t i = 0; i < answer.decisions.size(); ++i) {
    const auto& d = answer.decisions[i];
    const auto it = allowed.find(d.job);
    const std::string where =
        fmt::format("elastic policy {}: decide at t={} s: result.decisions[{}]", policy_->name(),
                    kernel::format_seconds(k_.now()), i);
    if (it == allowed.end()) {
      throw PolicyError(
          fmt::format("{}.jobId: job id {} is not an elastic job it may resize now", where, d.job));
    }
    const auto& j = *it->second;
    if (d.expected_replicas < j.min || d.expected_replicas > j.max) {
      throw PolicyError(
          fmt::format("{}.expectedReplicas: job {}: expectedReplicas {} is outside [minReplicas "
                      "{}, maxReplicas {}]",
                      where, j.name, d.expected_replicas, j.min, j.max));
    }
    if (!seen.insert(d.job).second)
      throw PolicyError(fmt::format("{}.job: job {} decided twice", where, j.name));
    if (d.expected_replicas == j.expected) continue;
    store_.set_expected_replicas(d.job, d.expected_replicas);
    reconciles_.enqueue(d.job);
    last_resize_[d.job] = k_.now();
  }
  if (answer.next) {
    if (*answer.next <= k_.now()) {
      throw PolicyError(fmt::format(
          "elastic policy {}: decide at t={} s: result.nextDecision: t={} s is not in the future",
          policy_->name(), kernel::format_seconds(k_.now()), kernel::format_seconds(*answer.next)));
    }
    ask_at(*answer.next);
  }
}

policies::ElasticObservation PolicyDriver::observe(bool details) const {
  policies::ElasticObservation o;
  o.now = k_.now();
  const auto& acc = store_.accelerators();
  for (const auto& [name, n] : store_.nodes()) {
    if (!n.ready || n.unschedulable) continue;
    const std::int64_t gpus = acc.gpus_of(n.allocatable);
    const std::int64_t free = std::max<std::int64_t>(0, gpus - store_.gpus_in_use(name));
    o.free_gpus += free;
    if (!details) continue;
    // Fragmentation: nodes by their whole free GPUs.
    const auto size = static_cast<std::size_t>(std::max<std::int64_t>(gpus, free) + 1);
    if (o.free_gpus_per_node.size() < size) o.free_gpus_per_node.resize(size, 0);
    ++o.free_gpus_per_node[static_cast<std::size_t>(free)];
  }
  if (details && o.free_gpus_per_node.empty()) o.free_gpus_per_node.push_back(0);
  auto priority = [&](const std::string& queue) {
    const model::Queue* q = store_.queue(queue);
    return q ? q->spec.priority : 0;
  };
  // Queues: quota, allocation, and the demand of waiting pods by job priority.
  std::map<std::string,
           std::map<std::int32_t, policies::ElasticObservation::Demand, std::greater<>>>
      demand;
  for (JobId id = 0; id < store_.job_count(); ++id) {
    const StoredJob& j = store_.job(id);
    if (!j.submitted) continue;
    policies::ElasticObservation::Waiting* w = nullptr;
    std::int32_t bound = 0;
    for (const auto& p : j.pods) {
      if (!live(p)) continue;
      if (!p.node_name.empty()) {
        ++bound;
        continue;
      }
      if (!w) {
        w = &o.waiting.emplace_back();
        w->queue_priority = priority(j.queue.str());
        w->job = id;
        auto& d = demand[j.queue.str()][j.priority];
        d.job_priority = j.priority;
        ++d.jobs;
      }
      const std::int64_t gpu_milli = acc.gpu_milli_of(*p.requests);
      demand[j.queue.str()][j.priority].gpu_milli += gpu_milli;
      if (!details) continue;
      ++w->waiting_pods;
      w->gpu_milli += gpu_milli;
      for (const auto& [r, q] : *p.requests) w->demand[r] += q;
      const SimTime created = p.metadata.creation_timestamp.value_or(SimTime{});
      if (w->waiting_pods == 1 || created < w->waiting_since) w->waiting_since = created;
    }
    if (w && details) {
      w->name = j.key;
      w->queue = j.queue;
      w->job_priority = j.priority;
      w->elastic = j.shape.elastic;
      // An elastic job that runs grew: it runs without the pods it waits for.
      w->growth_pods = j.shape.elastic && bound > 0 ? w->waiting_pods : 0;
      if (reasons_ && bound == 0) w->pending_cause = reasons_->pending_cause(id);
    }
  }
  for (const auto& [name, q] : store_.queues()) {
    policies::ElasticObservation::Queue v;
    v.name = name;
    v.priority = q.spec.priority;
    if (q.spec.quota) v.quota_gpu_milli = acc.milli_of(*q.spec.quota);
    v.allocated_gpu_milli = acc.milli_of(store_.queue_used(name));
    for (const auto& [prio, d] : demand[name]) v.pending.push_back(d);
    o.queues.push_back(std::move(v));
  }
  for (JobId id = 0; id < store_.job_count(); ++id) {
    const StoredJob& j = store_.job(id);
    // A compacted job has finished (its status is released with its spec).
    if (!j.submitted || !j.shape.elastic || j.compacted) continue;
    const auto& status = model::status_of(j.job);
    if (status.phase && model::is_terminal(*status.phase)) continue;
    o.jobs.push_back(elastic_job(id, j, priority(j.queue.str()), details));
  }
  return o;
}

policies::ElasticObservation::Job PolicyDriver::elastic_job(JobId id, const StoredJob& j,
                                                            std::int32_t queue_priority,
                                                            bool details) const {
  policies::ElasticObservation::Job v;
  v.id = id;
  v.name = j.key;
  v.queue = j.queue;
  v.queue_priority = queue_priority;
  v.min = j.shape.min;
  v.max = j.shape.max;
  v.expected = j.shape.expected;
  v.gpus_per_pod = j.shape.gpus_per_first_pod;
  for (const auto& p : j.pods) {
    v.running_pods += live_and_running(p) ? 1 : 0;
    if (details && live(p) && p.node_name.empty()) ++v.waiting_pods;
  }
  if (details) v.job_priority = j.priority;
  if (const auto* pt = std::get_if<model::PyTorchTrainingJob>(&j.job)) {
    if (!pt->spec.replica_specs.empty() && pt->spec.replica_specs.front().scaling_weight) {
      v.scaling_weight = *pt->spec.replica_specs.front().scaling_weight;
    }
  }
  for (std::int32_t n = 1; n <= j.shape.max; ++n) v.speedup.push_back(training_.speedup(id, n));
  const TrainingState t = training_.state(id);
  v.progress = t.progress;
  v.training = t.training;
  v.since_checkpoint = t.since_checkpoint;
  v.checkpoint_interval = t.checkpoint_interval;
  v.checkpoint_cost = t.checkpoint_cost;
  v.rescale_overhead = t.rescale_overhead;
  if (const auto it = last_resize_.find(id); it != last_resize_.end()) v.last_resize = it->second;
  return v;
}

}  // namespace t9k::sim
