#include "sim/submissions.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

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

namespace {

// A plugin's own kind: the scripted runs name replica types its declared replica specs have, as
// its pods spell them (Kubeflow's spec says "Master", its pods "master"), which the loader
// could not check before the plugin declared the kind.
void check_plugin_scripts(const model::PluginJob& job, const scenarios::JobBehaviour& b,
                          const std::string& source) {
  for (std::size_t i = 0; i < b.replicas.size(); ++i) {
    const auto& script = b.replicas[i];
    const auto& specs = job.spec.replica_specs;
    const auto it = std::find_if(specs.begin(), specs.end(), [&](const auto& r) {
      return model::same_replica_type(r.type, script.type);
    });
    std::string names;
    for (const auto& r : specs) names += (names.empty() ? "" : ", ") + r.type;
    if (it == specs.end())
      throw ScenarioError(fmt::format(
          "{}: behaviour.replicas[{}].type: found \"{}\", which is not a replica type of {} {}; "
          "allowed: {} (as its pods name them)",
          source, i, script.type, job.kind, job.metadata.name, names));
    if (script.rank && *script.rank >= it->replicas)
      throw ScenarioError(
          fmt::format("{}: behaviour.replicas[{}].rank: found {}; allowed: a rank of {} below {}",
                      source, i, *script.rank, it->type, it->replicas));
  }
}

}  // namespace

std::optional<JobId> Submissions::submit(scenarios::JobSubmission&& sub) {
  const auto& controller = controllers_.controller_for(sub.job);
  try {
    controller.complete(sub.job);  // a plugin's own kind: its replica specs
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(fmt::format("{}: {}", sub.source, e.what()));
  }
  if (const auto* pj = std::get_if<model::PluginJob>(&sub.job))
    check_plugin_scripts(*pj, sub.behaviour, sub.source);
  const JobId id = store_.add_job(std::move(sub.job), sub.source);
  controllers_.add_job(id, controller);
  training_.add_job(id, std::move(sub.behaviour));
  const StoredJob& j = store_.job(id);
  store_.publish(model::JobSubmitted{
      id, j.key.str(), model::kind_of(j.job), j.queue.str(), j.priority,
      j.shape.elastic ? j.shape.expected : j.shape.replicas,
      store_.accelerators().gpu_milli_of(*j.shape.requests), j.shape.elastic,
      training_.ideal_run_us(id),
      model::kind_of(j.job) == model::JobKind::Plugin ? std::string(model::kind_name(j.job))
                                                      : std::string()});
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
