#include "sim/world.hpp"

#include <fmt/format.h>

#include "model/accelerators.hpp"
#include "sim/cluster.hpp"
#include "sim/controller_driver.hpp"
#include "sim/kubelet.hpp"
#include "sim/operations.hpp"
#include "sim/plugin_set.hpp"
#include "sim/policy_driver.hpp"
#include "sim/scheduling_driver.hpp"
#include "sim/submissions.hpp"
#include "sim/training.hpp"

namespace t9k::sim {

// Members are constructed in order, each given the components it calls. The controller driver,
// the kubelet and training call one another (a reconcile deletes pods, a pod stopping matters to
// training, training's processes exiting stop pods), so that cycle is closed by connect().
struct World::Impl {
  const scenarios::Scenario& sc;
  WorldSettings st;
  kernel::Kernel k;
  kernel::RngStreams streams;
  PluginSet plugins;  // started before the components that use them
  Store store;
  ControllerDriver controllers;
  Kubelet kubelet;
  Training training;
  SchedulingDriver scheduling;
  Cluster cluster;
  Submissions submissions;
  Operations operations;
  PolicyDriver policies;

  Impl(const scenarios::Scenario& s, std::uint64_t replication, Sink sink, WorldSettings settings)
      : sc(s),
        st(std::move(settings)),
        streams(s.seed, replication),
        plugins(st),
        store(k, std::move(sink), s.default_namespace, model::Accelerators(s.cluster.accelerators)),
        controllers(s, st, k, streams, store, plugins.registry()),
        kubelet(s, st, k, streams, store, controllers),
        training(s, st, k, streams, store, kubelet, controllers),
        scheduling(s, st, k, store, kubelet, controllers),
        cluster(s, st, k, streams, store, kubelet, controllers, scheduling),
        submissions(s, replication, k, store, controllers, training, scheduling),
        operations(s, k, store, cluster, kubelet, training, controllers, scheduling),
        policies(s, st, k, store, training, controllers, plugins.policy(), &scheduling) {
    controllers.connect(kubelet, training, &policies);
    kubelet.connect(training);
    store.set_watcher(&scheduling);
    store.set_keep_finished(st.keep_finished_jobs);
    store.set_keep_outcomes(st.keep_outcomes);
    route(controllers);
    route(kubelet);
    route(training);
    route(scheduling);
    route(cluster);
    route(submissions);
    route(operations);
    route(policies);
  }

  // Every event kind the component owns goes to it (sim/events.hpp).
  template <class C>
  void route(C& component) {
    for (EventKind kind : C::kKinds) k.route(kind, &component);
  }

  void start() {
    cluster.build();
    scheduling.add_queues();
    submissions.start();
    operations.start();
    policies.start();
  }
};

World::World(const scenarios::Scenario& scenario, std::uint64_t replication, Sink sink)
    : World(scenario, replication, std::move(sink), settings_from_scenario(scenario)) {}

World::World(const scenarios::Scenario& scenario, std::uint64_t replication, Sink sink,
             WorldSettings settings)
    : impl_(std::make_unique<Impl>(scenario, replication, std::move(sink), std::move(settings))) {
  impl_->start();
}

World::~World() = default;

void World::run(const std::function<void(double)>& progress) {
  const SimTime horizon{impl_->sc.horizon};
  if (!progress) {
    impl_->k.run_until(horizon);
  } else {
    // Stepping the clock in slices dispatches the same events in the same order.
    const auto h = horizon.time_since_epoch().count();
    for (int i = 1; i <= 100; ++i) {
      impl_->k.run_until(SimTime{SimDuration{h / 100 * i + (i == 100 ? h % 100 : 0)}});
      progress(i / 100.0);
    }
  }
  impl_->training.finish();
  impl_->scheduling.finish();
  impl_->plugins.shutdown();
}

SimTime World::now() const { return impl_->k.now(); }
std::uint64_t World::fingerprint() const { return impl_->k.fingerprint(); }
std::uint64_t World::events_dispatched() const { return impl_->k.dispatched(); }

std::uint64_t World::plugin_calls() const { return impl_->plugins.calls(); }
std::vector<plugins::PluginStats> World::plugin_stats() const { return impl_->plugins.stats(); }

std::vector<JobOutcome> World::outcomes() const {
  std::vector<JobOutcome> out;
  out.reserve(impl_->store.job_count());
  for (JobId id = 0; id < impl_->store.job_count(); ++id) out.push_back(impl_->store.outcome(id));
  return out;
}

std::vector<scenarios::Object> World::objects() const { return impl_->store.objects(); }

const model::Job* World::find_job(const std::string& name) const {
  const StoredJob* j = impl_->store.find_job(name);
  return j && !j->compacted ? &j->job : nullptr;
}

std::vector<std::string> World::notes() const { return impl_->scheduling.notes(); }

}  // namespace t9k::sim
