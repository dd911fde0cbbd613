#include "sim/policy_driver.hpp"

#include "sim/store.hpp"

namespace t9k::sim {

PolicyDriver::PolicyDriver(const scenarios::Scenario& scenario, const WorldSettings& settings, kernel::Kernel& kernel,
                           Store& store, ReconcileQueue& reconciles)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      store_(store),
      reconciles_(reconciles),
      policy_(make_elastic_policy(settings.elastic_policy)) {}

void PolicyDriver::start() {
  if (policy_) k_.post_at(SimTime{}, kPhaseOps, kElasticPolicy, 0);
}

ElasticObservation PolicyDriver::observe() const {
  ElasticObservation o;
  o.now = k_.now();
  for (const auto& [name, n] : store_.nodes()) {
    if (!n.ready || n.unschedulable) continue;
    o.free_gpus += std::max<std::int64_t>(0, gpus_of(n.allocatable) - store_.gpus_in_use(name));
  }
  auto priority = [&](const std::string& queue) {
    const model::Queue* q = store_.queue(queue);
    return q ? q->spec.priority : 0;
  };
  for (JobId id = 0; id < store_.job_count(); ++id) {
    const StoredJob& j = store_.job(id);
    if (!j.submitted) continue;
    for (const auto& p : j.pods) {
      if (live(p) && p.node_name.empty()) {
        o.waiting.push_back({priority(j.queue), id});
        break;
      }
    }
  }
  for (JobId id = 0; id < store_.job_count(); ++id) {
    const StoredJob& j = store_.job(id);
    // A compacted job has finished (its status is released with its spec).
    if (!j.submitted || !j.shape.elastic || j.compacted) continue;
    const auto& status = model::status_of(j.job);
    if (status.phase && model::is_terminal(*status.phase)) continue;
    o.jobs.push_back({id, priority(j.queue), j.shape.min, j.shape.max, j.shape.expected, j.shape.gpus_per_first_pod});
  }
  return o;
}

void PolicyDriver::handle(const kernel::DispatchedEvent& e) {
  if (e.kind != kElasticPolicy || !policy_) return;
  for (const auto& d : policy_->decide(observe())) {
    store_.set_expected_replicas(d.job, d.expected_replicas);
    reconciles_.enqueue(d.job);
  }
  if (k_.now() + st_.elastic_policy_period <= SimTime{sc_.horizon}) {
    k_.post_in(st_.elastic_policy_period, kPhaseOps, kElasticPolicy, 0);
  }
}

}  // namespace t9k::sim
