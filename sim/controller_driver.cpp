#include "sim/controller_driver.hpp"

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

using model::JobPhase;

ControllerDriver::ControllerDriver(const scenarios::Scenario& scenario,
                                   const WorldSettings& settings, kernel::Kernel& kernel,
                                   const kernel::RngStreams& streams, Store& store,
                                   controllers::Registry registry)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      store_(store),
      registry_(std::move(registry)),
      rng_reconcile_(streams.stream("controllers/reconcile-latency")) {
  for (const auto* c : registry_.controllers()) prepares_ = prepares_ || c->prepares();
}

void ControllerDriver::handle(const kernel::DispatchedEvent& e) {
  const auto id = static_cast<JobId>(e.key);
  switch (e.kind) {
    case kReconcile:
      reconcile(id);
      break;
    case kRequeue:
      enqueue(id);
      break;
    default:
      break;
  }
}

const controllers::Controller& ControllerDriver::controller_for(const model::Job& job) const {
  const controllers::Controller* c =
      registry_.find(model::api_version_of(job), model::kind_name(job));
  if (!c) {
    throw ScenarioError(
        fmt::format("no controller for {} {}", model::api_version_of(job), model::kind_name(job)));
  }
  return *c;
}

void ControllerDriver::add_job(JobId id, const controllers::Controller& controller) {
  if (jobs_.size() != id)
    throw std::logic_error("controller driver: jobs must be added in id order");
  jobs_[jobs_.acquire()] = JobControl{&controller, false, {}};  // never released: slot == id
}

void ControllerDriver::enqueue(JobId id) {
  JobControl& c = jobs_[id];
  const StoredJob& j = store_.job(id);
  if (c.pending || j.rejected || !j.submitted || j.compacted) return;
  c.pending = true;
  const SimDuration latency = sc_.controllers.reconcile_latency.draw(rng_reconcile_);
  k_.post_in(latency, kPhaseController, kReconcile, id);
  if (prepares_) due_[k_.now() + latency].push_back(id);
}

controllers::ReconcileInput ControllerDriver::input_of(const StoredJob& j) const {
  return {j.job,
          std::span<const model::Pod>(j.pods),
          j.pod_group ? &*j.pod_group : nullptr,
          j.tensorboard ? std::optional(*j.tensorboard) : std::nullopt,
          k_.now(),
          st_.controller_options};
}

// The first reconcile of an instant tells the controllers in other processes every reconcile
// due now, so that they travel in one message (docs/protocol-v2.md §2).
void ControllerDriver::prepare_instant() {
  const auto it = due_.find(k_.now());
  if (it == due_.end()) return;
  std::vector<controllers::ReconcileInput> due;
  for (const JobId id : it->second) {
    const StoredJob& j = store_.job(id);
    if (jobs_[id].pending && !j.compacted) due.push_back(input_of(j));
  }
  due_.erase(it);
  for (const auto* c : registry_.controllers()) {
    if (c->prepares()) c->prepare(due);
  }
}

void ControllerDriver::reconcile(JobId id) {
  if (prepares_) prepare_instant();
  JobControl& c = jobs_[id];
  c.pending = false;
  const StoredJob& j = store_.job(id);
  if (j.compacted) return;
  controllers::ReconcileResult res = c.controller->reconcile(input_of(j));
  const auto before = model::status_of(j.job).phase;
  const auto counters_before = status_counters(model::status_of(j.job));
  // The whole status on every change, when asked for (events.jsonl): copied only then.
  const bool status_changed = st_.publish_job_status && !(res.status == model::status_of(j.job));
  store_.set_status(id, std::move(res.status));
  if (status_changed) {
    store_.publish(
        model::JobStatusChanged{id, scenarios::to_compact_json(model::status_of(j.job))});
  }
  if (st_.publish_job_status) {  // events.jsonl only
    for (auto& e : res.events) {
      store_.publish(model::ControllerEventRecorded{id, std::move(e.type), std::move(e.reason),
                                                    std::move(e.message)});
    }
  }
  for (auto& a : res.actions) apply(id, a);
  const auto& status = model::status_of(j.job);
  if (status.phase && (status.phase != before || status_counters(status) != counters_before)) {
    phase_changed(id, before);
  }
  if (res.requeue_after) {
    k_.cancel(c.requeue_ev);
    c.requeue_ev = k_.post_in(*res.requeue_after, kPhaseController, kRequeue, id);
  }
  training_->evaluate(id);
  if (!c.pending && store_.compactable(id)) {
    c.controller->forget(model::metadata_of(j.job).uid);
    store_.compact(id);
    k_.cancel(c.requeue_ev);
    training_->forget(id);
  }
}

void ControllerDriver::phase_changed(JobId id, std::optional<JobPhase> before) {
  const StoredJob& j = store_.job(id);
  const auto& status = model::status_of(j.job);
  const JobPhase ph = *status.phase;
  if (before && model::is_terminal(*before) && ph != *before) {
    violation(k_, fmt::format("job {} left terminal phase {} for {}", j.key,
                              model::to_string(*before), model::to_string(ph)));
  }
  model::Text reason, message;
  for (const auto& cond : status.conditions) {
    const bool pick = model::is_terminal(ph) ? (cond.type == model::JobConditionType::Completed)
                                             : (cond.type == model::JobConditionType::Running);
    if (pick) {
      reason = cond.reason;
      message = cond.message;
    }
  }
  if (model::is_terminal(ph)) {
    for (const auto& cond : status.conditions) {
      if (cond.type == model::JobConditionType::Failed &&
          cond.status == model::ConditionStatus::True) {
        message = cond.message;
      }
    }
  }
  const auto [restarts, backoff] = status_counters(status);
  store_.publish(
      model::JobPhaseChanged{id, ph, std::move(reason), std::move(message), restarts, backoff});
  if (model::is_terminal(ph) && before != ph) {
    store_.finish_pod_group(id);
    training_->job_finished(id);
  }
  if (policies_ && j.shape.elastic && before != ph &&
      (ph == JobPhase::Running || model::is_terminal(ph))) {
    policies_->elastic_job_changed(id);
  }
}

void ControllerDriver::apply(JobId id, controllers::Action& action) {
  std::visit(
      [&](auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, controllers::CreatePod>) {
          store_.create_pod(id, std::move(a.pod));
        } else if constexpr (std::is_same_v<T, controllers::DeletePod>) {
          pods_->delete_pod(id, a.name, a.reason);
        } else if constexpr (std::is_same_v<T, controllers::CreatePodGroup>) {
          store_.set_pod_group(id, std::move(a.pod_group), false);
        } else if constexpr (std::is_same_v<T, controllers::UpdatePodGroup>) {
          store_.set_pod_group(id, std::move(a.pod_group), true);
        } else if constexpr (std::is_same_v<T, controllers::CreateTensorBoard>) {
          pods_->create_tensorboard(id);
        } else if constexpr (std::is_same_v<T, controllers::RestartTraining>) {
          training_->restart(id);
        }
      },
      action);
}

}  // namespace t9k::sim
