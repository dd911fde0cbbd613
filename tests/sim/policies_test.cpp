// The policy driver alone, over an in-memory store with fake training and reconcile queue: what
// the elastic policy observes, when it is called and how its decisions are applied or refused.
// The policies' decisions themselves are tested in tests/policies/.
#include "tests/sim/support.hpp"

#include "sim/policy_driver.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;

namespace {

// An elastic PyTorch job "el" (1..4 replicas of 2 GPUs, expected 2) in queue default (priority 3),
// under the greedy policy.
const std::string kElastic = R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: t}
spec:
  horizon: 1d
  cluster:
    nodePools: [{name: gpu, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  scheduler:
    name: t9k
    queues:
    - manifest: {apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, metadata: {name: default}, spec: {priority: 3}}
  controllers: {options: {elasticPolicy: greedy}}
  workload:
    jobs:
    - submitAt: 0s
      behaviour: {runTime: 1h}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: PyTorchTrainingJob
        metadata: {name: el}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          torchrunConfig: {enabled: true}
          elastic: {enabled: true, minReplicas: 1, maxReplicas: 4, expectedReplicas: 2}
          replicaSpecs:
          - type: worker
            restartPolicy: OnFailure
            template: {spec: {containers: [{name: pytorch, image: t, resources: {limits: {nvidia.com/gpu: 2}}}]}}
)";

}  // namespace

TEST_CASE("policy driver: the observation counts free GPUs, waiting jobs and elastic jobs",
          "[sim][policy]") {
  const auto sc = load(kElastic + generic_job_yaml("rigid", 1, 8));
  Log log;
  kernel::Kernel k;
  const WorldSettings st = settings_from_scenario(sc);
  RecordingWatcher watcher(log);
  Store store(k, {}, "default");
  store.set_watcher(&watcher);
  FakeReconciles reconciles(log);
  FakeTraining training(log);
  PolicyDriver driver(sc, st, k, store, training, reconciles);
  for (EventKind kind : PolicyDriver::kKinds) k.route(kind, &driver);
  store.add_node(gpu_node("n0", 8));
  store.add_node(gpu_node("n1", 8));
  store.add_queue(sc.scheduler.queues.at(0));
  const JobId el = store.add_job(sc.workload.jobs.at(0).job, "t");
  const JobId rigid = store.add_job(sc.workload.jobs.at(1).job, "t");
  store.admit(el);
  store.admit(rigid);
  store.create_pod(el, worker_pod("el", 0, 2));
  store.bind_pod("default/el-worker-0", "n0", -1);
  store.create_pod(rigid, worker_pod("rigid", 0, 8));  // waits for a node

  const policies::ElasticObservation o = driver.observe();
  CHECK(o.free_gpus == 14);
  REQUIRE(o.waiting.size() == 1);
  CHECK(o.waiting.at(0).job == rigid);
  CHECK(o.waiting.at(0).queue_priority == 3);
  REQUIRE(o.jobs.size() == 1);
  const auto& j = o.jobs.at(0);
  CHECK(j.id == el);
  CHECK(j.name == "default/el");
  CHECK(j.expected == 2);
  CHECK(j.gpus_per_pod == 2);
  CHECK(j.speedup == std::vector<double>{1, 2, 3, 4});  // the fake's linear scaling, n = 1..max
  CHECK(j.progress == 0.4);
  CHECK(j.since_checkpoint == kernel::minutes(3));
  CHECK_FALSE(j.last_resize);
  REQUIRE(o.queues.size() == 1);
  const auto& q = o.queues.at(0);
  CHECK(q.name == "default");
  CHECK(q.priority == 3);
  CHECK_FALSE(q.quota_gpu_milli);
  CHECK(q.allocated_gpu_milli == 2000);
  REQUIRE(q.pending.size() == 1);
  CHECK(q.pending.at(0).gpu_milli == 8000);
  CHECK(q.pending.at(0).jobs == 1);

  // Every period from time 0: the rigid job (same queue priority) waits, so the elastic job
  // shrinks to minReplicas, written into its spec, and its controller is enqueued.
  driver.start();
  k.run_until(kernel::SimTime{});
  CHECK(store.job(el).shape.expected == 1);
  CHECK(log.back() == "enqueue 0");
  CHECK(k.pending_events() == 1);  // the next evaluation, one period later
  CHECK(driver.observe().jobs.at(0).last_resize == kernel::SimTime{});
}

namespace {
// Answers what a test scripts, and counts its calls.
struct ScriptedPolicy final : policies::ElasticPolicy {
  std::vector<policies::ElasticDecisions> answers;
  mutable std::vector<kernel::SimTime> calls;
  std::string_view name() const override { return "scripted"; }
  policies::ElasticDecisions decide(const policies::ElasticObservation& o) const override {
    calls.push_back(o.now);
    return calls.size() <= answers.size() ? answers[calls.size() - 1]
                                          : policies::ElasticDecisions{};
  }
};

struct PolicyFixture {
  Log log;
  kernel::Kernel k;
  scenarios::Scenario sc = load(kElastic);
  WorldSettings st = settings_from_scenario(sc);  // period 5 min
  RecordingWatcher watcher{log};
  Store store{k, {}, "default"};
  FakeReconciles reconciles{log};
  FakeTraining training{log};
  ScriptedPolicy* policy = nullptr;
  std::unique_ptr<PolicyDriver> driver;
  JobId el = 0;
  explicit PolicyFixture(std::vector<policies::ElasticDecisions> answers) {
    auto p = std::make_unique<ScriptedPolicy>();
    p->answers = std::move(answers);
    policy = p.get();
    driver = std::make_unique<PolicyDriver>(sc, st, k, store, training, reconciles, std::move(p));
    for (EventKind kind : PolicyDriver::kKinds) k.route(kind, driver.get());
    store.set_watcher(&watcher);
    el = store.add_job(sc.workload.jobs.at(0).job, "t");
    store.admit(el);
  }
};
}  // namespace

TEST_CASE("policy driver: decides every period, when asked, and when an elastic job starts or ends",
          "[sim][policy]") {
  PolicyFixture f(
      {{{}, kernel::SimTime{kernel::minutes(2)}}});  // the first answer asks for t = 2 min
  f.driver->start();
  f.k.run_until(kernel::SimTime{kernel::minutes(4)});
  CHECK(f.policy->calls ==
        std::vector<kernel::SimTime>{kernel::SimTime{}, kernel::SimTime{kernel::minutes(2)}});
  f.driver->elastic_job_changed(f.el);  // now (4 min)
  f.driver->elastic_job_changed(f.el);  // one decision for both
  f.k.run_until(kernel::SimTime{kernel::minutes(5)});
  CHECK(f.policy->calls == std::vector<kernel::SimTime>{kernel::SimTime{},
                                                        kernel::SimTime{kernel::minutes(2)},
                                                        kernel::SimTime{kernel::minutes(4)},
                                                        kernel::SimTime{kernel::minutes(5)}});
}

TEST_CASE("policy driver: a decision the world cannot apply stops the run with the job and value",
          "[sim][policy]") {
  SECTION("above maxReplicas") {
    PolicyFixture f({{{{0, 5}}, std::nullopt}});
    f.driver->start();
    CHECK_THROWS_WITH(
        f.k.run_until(kernel::SimTime{}),
        Catch::Contains("elastic policy scripted: decide at t=0.000000 s: "
                        "result.decisions[0].expectedReplicas") &&
            Catch::Contains("job default/el") &&
            Catch::Contains("expectedReplicas 5 is outside [minReplicas 1, maxReplicas 4]"));
  }
  SECTION("a job it may not resize") {
    PolicyFixture f({{{{7, 2}}, std::nullopt}});
    f.driver->start();
    CHECK_THROWS_WITH(f.k.run_until(kernel::SimTime{}),
                      Catch::Contains("job id 7 is not an elastic job"));
  }
  SECTION("a next decision in the past") {
    PolicyFixture f({{{}, kernel::SimTime{}}});
    f.driver->start();
    CHECK_THROWS_WITH(f.k.run_until(kernel::SimTime{}), Catch::Contains("is not in the future"));
  }
  SECTION("within the limits it is applied and enqueued") {
    PolicyFixture f({{{{0, 4}}, std::nullopt}});
    f.driver->start();
    f.k.run_until(kernel::SimTime{});
    CHECK(f.store.job(f.el).shape.expected == 4);
    CHECK(f.log.back() == "enqueue 0");
  }
}

TEST_CASE("policy driver: a finished, compacted elastic job is no candidate", "[sim][policy]") {
  // Its spec and status are released with compaction; it must not take idle GPUs from others.
  const auto sc = load(kElastic);
  Log log;
  kernel::Kernel k;
  const WorldSettings st = settings_from_scenario(sc);
  RecordingWatcher watcher(log);
  Store store(k, {}, "default");
  store.set_watcher(&watcher);
  FakeReconciles reconciles(log);
  FakeTraining training(log);
  PolicyDriver driver(sc, st, k, store, training, reconciles);
  store.add_node(gpu_node("n0", 8));
  const JobId el = store.add_job(sc.workload.jobs.at(0).job, "t");
  store.admit(el);
  CHECK(driver.observe().jobs.size() == 1);
  model::JobStatus done;
  done.phase = model::JobPhase::Succeeded;
  store.set_status(el, done);
  CHECK(driver.observe().jobs.empty());  // terminal
  REQUIRE(store.compactable(el));
  store.compact(el);
  CHECK(driver.observe().jobs.empty());  // compacted
}
