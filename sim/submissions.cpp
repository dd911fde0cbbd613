#include "sim/submissions.hpp"

#include "kernel/hash.hpp"
#include "scheduler/scheduler.hpp"
#include "sim/controller_driver.hpp"
#include "sim/scheduling_driver.hpp"
#include "sim/store.hpp"
#include "sim/training.hpp"
#include "workload/initial_state.hpp"
#include "workload/sources.hpp"

namespace t9k::sim {

Submissions::Submissions(const scenarios::Scenario& scenario, std::uint64_t replication,
                         kernel::Kernel& kernel, Store& store, ControllerDriver& controllers,
                         Training& training, SchedulingDriver& scheduling)
    : sc_(scenario),
      replication_(replication),
      k_(kernel),
      store_(store),
      controllers_(controllers),
      training_(training),
      scheduling_(scheduling) {}

std::string Submissions::key_of(const scenarios::JobSubmission& sub) const {
  // The key of the metadata with the default namespace filled in, without copying the metadata
  // (its labels and annotations) once per submitted job.
  const auto& m = model::metadata_of(sub.job);
  return model::object_key(m.namespace_.empty() ? sc_.default_namespace : m.namespace_, m.name);
}

void Submissions::start() {
  initial_ = workload::initial_submissions(sc_, replication_);
  for (std::size_t i = 0; i < initial_.size(); ++i) {
    const auto order = static_cast<std::int64_t>(i) - static_cast<std::int64_t>(initial_.size());
    pending_.push(Pending{SimTime{}, order, key_of(initial_[i].submission), -1, 0,
                          static_cast<std::int64_t>(i)});
  }
  for (std::size_t i = 0; i < sc_.workload.jobs.size(); ++i) {
    const auto& sub = sc_.workload.jobs[i];
    pending_.push(Pending{sub.submit_time, 0, key_of(sub), static_cast<std::int64_t>(i), 0});
  }
  sources_ = workload::workload_sources(sc_, replication_);
  next_.resize(sources_.size());
  for (std::size_t s = 0; s < sources_.size(); ++s) pull(s);
  schedule_next();
}

void Submissions::pull(std::size_t s) {
  if (sources_[s]->next(next_[s]))
    pending_.push(Pending{next_[s]->submit_time, 0, key_of(*next_[s]), -1, s});
}

void Submissions::schedule_next() {
  if (pending_.empty()) return;
  const Pending& next = pending_.top();
  if (next.time > SimTime{sc_.horizon}) return;
  k_.post_at(next.time, kPhaseOps, kSubmit, kernel::hash_string(next.key));
}

void Submissions::handle(const kernel::DispatchedEvent& e) {
  if (e.kind != kSubmit) return;
  const Pending p = pending_.top();
  pending_.pop();
  if (p.initial_index >= 0) {
    auto& init = initial_[static_cast<std::size_t>(p.initial_index)];
    const auto id = submit(std::move(init.submission));
    // A running job without recorded pods is placed by the scheduler (docs/forecast.md).
    if (id && init.running && !init.pins.empty()) scheduling_.pin(*id, std::move(init.pins));
  } else if (p.explicit_index >= 0) {
    submit(scenarios::JobSubmission(sc_.workload.jobs[static_cast<std::size_t>(p.explicit_index)]));
  } else {
    submit(std::move(*next_[p.source]));
    pull(p.source);
  }
  schedule_next();
}

std::optional<JobId> Submissions::submit(scenarios::JobSubmission&& sub) {
  const auto& controller = controllers_.controller_for(model::kind_of(sub.job));
  const JobId id = store_.add_job(std::move(sub.job), sub.source);
  controllers_.add_job(id, controller);
  training_.add_job(id, std::move(sub.behaviour));
  const StoredJob& j = store_.job(id);
  store_.publish(model::JobSubmitted{id, j.key, model::kind_of(j.job), j.queue, j.priority,
                                     j.shape.elastic ? j.shape.expected : j.shape.replicas,
                                     store_.accelerators().gpu_milli_of(j.shape.requests),
                                     j.shape.elastic, training_.ideal_run_us(id)});
  store_.set_created(id);
  if (const auto rejection = scheduling_.admit(id)) {
    store_.reject(id, std::string(scheduler::to_string(rejection->reason)), rejection->message);
    return std::nullopt;
  }
  store_.admit(id);
  controllers_.enqueue(id);
  return id;
}

}  // namespace t9k::sim
