// The controller driver and the scheduling driver, each with the real decision code (controllers/,
// scheduler/) over an in-memory store, and fakes for the other rooms.
#include "tests/sim/support.hpp"

#include <algorithm>

#include "model/accelerators.hpp"
#include "sim/controller_driver.hpp"
#include "sim/scheduling_driver.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;

namespace {

kernel::SimTime at_s(double s) {
  return kernel::SimTime{kernel::SimDuration{static_cast<std::int64_t>(s * 1e6)}};
}

bool has(const Log& log, const std::string& line) {
  return std::find(log.begin(), log.end(), line) != log.end();
}
long count(const Log& log, const std::string& prefix) {
  return std::count_if(log.begin(), log.end(),
                       [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
}

// ---- controller driver ----

struct ControllerFixture {
  Log log;
  std::vector<model::TimedChange> feed;
  kernel::Kernel k;
  scenarios::Scenario sc;
  WorldSettings st;
  kernel::RngStreams streams{5, 0};
  RecordingWatcher watcher{log};
  Store store{k, [this](const model::TimedChange& c) { feed.push_back(c); }, "default"};
  FakePods pods{log};
  FakeTraining training{log};
  ControllerDriver driver{sc, st, k, streams, store};
  JobId id = 0;

  explicit ControllerFixture(const std::string& job_yaml) : sc(scenario_with(job_yaml)) {
    store.set_watcher(&watcher);
    store.set_keep_outcomes(true);
    driver.connect(pods, training);
    for (EventKind kind : ControllerDriver::kKinds) k.route(kind, &driver);
    store.add_node(gpu_node("n0", 8));
    id = store.add_job(sc.workload.jobs.at(0).job, "t.yaml");
    driver.add_job(id, driver.controller_for(store.job(id).job));
    log.clear();
  }
  std::optional<model::JobPhase> phase() const { return model::status_of(store.job(id).job).phase; }
};

}  // namespace

TEST_CASE("controller driver: changes are de-duplicated into one reconcile a latency later",
          "[sim][controllers]") {
  ControllerFixture f(generic_job_yaml("train", 2, 4));
  f.driver.enqueue(f.id);
  CHECK(f.k.pending_events() == 0);  // not admitted yet: not reconciled
  f.store.admit(f.id);
  f.driver.enqueue(f.id);
  f.driver.enqueue(f.id);
  f.driver.enqueue(f.id);
  CHECK(f.k.pending_events() == 1);
  f.k.run_until(at_s(0.099));
  CHECK(f.log.empty());
  f.k.run_until(at_s(0.1));  // the default reconcile latency, 100 ms
  CHECK(f.k.dispatched() == 1);
  // The GenericJob controller's actions, applied in order: its PodGroup and its two pods.
  CHECK(f.log == Log{"watch: group train", "watch: created train-worker-0",
                     "watch: created train-worker-1", "evaluate 0"});
  CHECK(f.phase() == model::JobPhase::Pending);
  CHECK(std::holds_alternative<model::JobPhaseChanged>(f.feed.back().change));
}

TEST_CASE("controller driver: a finished job stops training and is compacted once its pods ended",
          "[sim][controllers]") {
  ControllerFixture f(R"(    - submitAt: 0s
      behaviour: {runTime: 1h}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {name: train}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          cleanUpPolicy: All
          replicaSpecs: [{type: worker, replicas: 1, template: {spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 4}}}]}}}]
)");
  f.store.admit(f.id);
  f.driver.enqueue(f.id);
  f.k.run_until(at_s(1));
  const std::string key = "default/train-worker-0";
  REQUIRE(f.store.pod(key));
  f.store.bind_pod(key, "n0", -1);
  f.store.set_pod_running(f.id, key);
  f.driver.enqueue(f.id);
  f.k.run_until(at_s(2));
  CHECK(f.phase() == model::JobPhase::Running);
  f.store.terminate_pod(f.id, key, model::PodPhase::Succeeded, 0);
  f.log.clear();
  f.driver.enqueue(f.id);
  f.k.run_until(at_s(3));
  // cleanUpPolicy All: the pod is deleted through the kubelet; the PodGroup is marked finished
  // (§8.3: the scheduler's snapshot hears of it); training hears the job ended; the job is
  // compacted (its pods have all terminated) and training forgets it.
  CHECK(f.log == Log{"delete 0 train-worker-0 Cleanup", "watch: group train", "finished 0",
                     "evaluate 0", "watch: removed default/train-worker-0",
                     "watch: group-removed default/train", "forget 0"});
  CHECK(f.store.job(f.id).compacted);  // its spec and status released...
  CHECK(f.store.outcome(f.id).phase ==
        model::JobPhase::Succeeded);  // ...its outcome kept (asked for)
  CHECK(change_name(f.feed.back().change) == "JobLeft");
  f.driver.enqueue(f.id);
  CHECK(f.k.pending_events() == 0);  // a compacted job is never reconciled again
  CHECK_THROWS_AS(f.driver.add_job(7, f.driver.controller_for(f.store.job(f.id).job)),
                  std::logic_error);
}

// ---- scheduling driver ----

namespace {

// Logs like FakePods, and stops the containers in the store as the kubelet would (the scheduler
// would otherwise find the same pod past its maxDuration again and again).
struct StoppingPods final : PodLifecycle {
  FakePods log;
  Store& store;
  StoppingPods(Log& l, Store& s) : log(l), store(s) {}
  void pod_bound(JobId j, const std::string& p, std::int32_t g) override { log.pod_bound(j, p, g); }
  void terminate(JobId j, const std::string& p, model::PodPhase phase, std::int32_t code,
                 std::optional<model::LossCause> cause) override {
    log.terminate(j, p, phase, code, cause);
    store.terminate_pod(j, p, phase, code);
  }
  void delete_pod(JobId j, std::string_view n, model::DeletionReason r) override {
    log.delete_pod(j, n, r);
  }
  void nodes_lost(const std::vector<std::string>& n, const std::string& c) override {
    log.nodes_lost(n, c);
  }
  void create_tensorboard(JobId j) override { log.create_tensorboard(j); }
};

struct SchedulingFixture {
  Log log;
  kernel::Kernel k;
  scenarios::Scenario sc;
  WorldSettings st;
  Store store{k, {}, "default"};
  StoppingPods pods{log, store};
  FakeReconciles reconciles{log};
  SchedulingDriver driver{sc, st, k, store, pods, reconciles};
  controllers::Registry registry = controllers::make_default_registry();
  JobId id = 0;

  explicit SchedulingFixture(const std::string& job_yaml, const std::string& queues = "")
      : sc(scenario_with(job_yaml, queues)) {
    store.set_watcher(&driver);
    for (EventKind kind : SchedulingDriver::kKinds) k.route(kind, &driver);
    store.add_node(gpu_node("n0", 8));
    store.add_node(gpu_node("n1", 8));
    driver.add_queues();
    id = store.add_job(sc.workload.jobs.at(0).job, "t.yaml");
  }
  // What the job's controller creates first (its PodGroup and pods), stored as the controller
  // driver would.
  void controller_creates() {
    const StoredJob& j = store.job(id);
    const auto* c = registry.find(model::kBatchApiVersion, model::to_string(model::kind_of(j.job)));
    const controllers::ReconcileInput in{j.job,        {},      nullptr,
                                         std::nullopt, k.now(), st.controller_options};
    for (auto& a : c->reconcile(in).actions) {
      if (auto* g = std::get_if<controllers::CreatePodGroup>(&a))
        store.set_pod_group(id, std::move(g->pod_group), false);
      if (auto* p = std::get_if<controllers::CreatePod>(&a))
        store.create_pod(id, std::move(p->pod));
    }
  }
};

}  // namespace

TEST_CASE("scheduling driver: a cycle binds a whole gang and hands its pods to the kubelet",
          "[sim][scheduling]") {
  SchedulingFixture f(generic_job_yaml("train", 2, 8));
  CHECK_FALSE(f.driver.admit(f.id));  // queue "default" exists (implicit, §8.2) and is open
  f.controller_creates();
  CHECK(f.k.pending_events() == 1);  // creations asked for one cycle
  f.k.run_until(at_s(1));            // the scheduling latency
  CHECK(count(f.log, "bound 0 default/train-worker-") == 2);
  CHECK(count(f.log, "enqueue 0") == 2);
  CHECK(f.store.bound_members(f.id) == 2);
  CHECK(f.store.gpus_in_use("n0") + f.store.gpus_in_use("n1") == 16);
  CHECK(model::Accelerators().gpus_of(f.store.queue_used("default")) == 16);
}

TEST_CASE("scheduling driver: a closed queue rejects a job at admission", "[sim][scheduling]") {
  SchedulingFixture f(generic_job_yaml("train", 1, 8));
  f.store.set_queue_closed("default", true);
  const auto rejection = f.driver.admit(f.id);
  REQUIRE(rejection);
  CHECK(rejection->reason == scheduler::RejectReason::QueueClosed);
}

TEST_CASE(
    "scheduling driver: a pod past its queue's maxDuration fails with reason MaxDuration (§11 Q12)",
    "[sim][scheduling]") {
  SchedulingFixture f(generic_job_yaml("train", 1, 8), R"(    queues:
    - manifest: {apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, metadata: {name: default}, spec: {maxDuration: 1h}}
)");
  f.controller_creates();
  f.k.run_until(at_s(1));
  REQUIRE(has(f.log, "bound 0 default/train-worker-0 gen 0"));
  f.log.clear();
  f.k.run_until(at_s(3599.9));
  CHECK(f.log.empty());
  f.k.run_until(at_s(3600));  // created at 0: its age reaches 1 h
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Failed 137 maxDuration", "enqueue 0"});
  const model::Pod* p = f.store.pod("default/train-worker-0");
  CHECK(p->deletion_reason == model::DeletionReason::MaxDuration);
  CHECK(p->phase == model::PodPhase::Failed);
  CHECK_FALSE(p->deletion_timestamp);  // kept, reported Failed (controller contract 5)
  CHECK(f.store.gpus_in_use("n0") + f.store.gpus_in_use("n1") == 0);
}
