// Elastic policies are decision code: a table of observations and the decisions each must give
// (issue 6 §5, docs/simulation-model.md "Elastic policies"); and the policy driver's observation.
#include "tests/sim/support.hpp"

#include "sim/elastic_policy.hpp"
#include "sim/policy_driver.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;

namespace {

using Job = ElasticObservation::Job;
using Waiting = ElasticObservation::Waiting;

struct Row {
  const char* what;
  std::int64_t free_gpus;
  std::vector<Waiting> waiting;
  std::vector<Job> jobs;  // id, queue priority, min, max, expected, GPUs per pod
  std::vector<ElasticDecision> want;
};

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

TEST_CASE("greedy elastic policy: grow on idle GPUs, shrink under pressure", "[sim][policy]") {
  const std::vector<Row> rows{
      {"idle GPUs: grow toward maxReplicas", 16, {}, {{0, 1, 1, 4, 2, 4}}, {{0, 4}}},
      {"growth limited by the free GPUs", 8, {}, {{0, 1, 1, 8, 2, 4}}, {{0, 4}}},
      {"fewer free GPUs than one pod needs: no change", 4, {}, {{0, 1, 1, 4, 2, 8}}, {}},
      {"at maxReplicas: no change", 64, {}, {{0, 1, 1, 4, 4, 4}}, {}},
      {"work of equal priority waits: shrink to minReplicas", 64, {{1, 5}}, {{0, 1, 1, 4, 3, 4}}, {{0, 1}}},
      {"work of higher priority waits: shrink", 0, {{9, 5}}, {{0, 1, 2, 4, 3, 4}}, {{0, 2}}},
      {"only lower-priority work waits: grow", 8, {{0, 5}}, {{0, 1, 1, 4, 2, 4}}, {{0, 4}}},
      {"the job's own pending pods are no pressure", 8, {{1, 0}}, {{0, 1, 1, 4, 2, 4}}, {{0, 4}}},
      {"jobs in id order take the free GPUs first", 8, {}, {{0, 1, 1, 4, 1, 4}, {1, 1, 1, 4, 1, 4}}, {{0, 3}}},
      {"a pod without GPUs counts one", 2, {}, {{0, 1, 1, 8, 1, 0}}, {{0, 3}}},
      {"under pressure at minReplicas: no change", 0, {{1, 5}}, {{0, 1, 2, 4, 2, 4}}, {}},
  };
  const GreedyElasticPolicy greedy;
  for (const auto& row : rows) {
    INFO(row.what);
    ElasticObservation o;
    o.free_gpus = row.free_gpus;
    o.waiting = row.waiting;
    o.jobs = row.jobs;
    CHECK(greedy.decide(o) == row.want);
  }
  CHECK(make_elastic_policy(ElasticPolicyKind::Fixed) == nullptr);
  CHECK(make_elastic_policy(ElasticPolicyKind::Greedy) != nullptr);
}

TEST_CASE("policy driver: the observation counts free GPUs, waiting jobs and elastic jobs", "[sim][policy]") {
  const auto sc = load(kElastic + generic_job_yaml("rigid", 1, 8));
  Log log;
  kernel::Kernel k;
  const WorldSettings st = settings_from_scenario(sc);
  RecordingWatcher watcher(log);
  Store store(k, {}, "default");
  store.set_watcher(&watcher);
  FakeReconciles reconciles(log);
  PolicyDriver driver(sc, st, k, store, reconciles);
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

  const ElasticObservation o = driver.observe();
  CHECK(o.free_gpus == 14);
  REQUIRE(o.waiting.size() == 1);
  CHECK(o.waiting.at(0).job == rigid);
  CHECK(o.waiting.at(0).priority == 3);
  REQUIRE(o.jobs.size() == 1);
  CHECK(o.jobs.at(0).id == el);
  CHECK(o.jobs.at(0).expected == 2);
  CHECK(o.jobs.at(0).gpus_per_pod == 2);

  // Every period from time 0: the rigid job (same queue priority) waits, so the elastic job
  // shrinks to minReplicas, written into its spec, and its controller is enqueued.
  driver.start();
  k.run_until(kernel::SimTime{});
  CHECK(store.job(el).shape.expected == 1);
  CHECK(log.back() == "enqueue 0");
  CHECK(k.pending_events() == 1);  // the next evaluation, one period later
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
  PolicyDriver driver(sc, st, k, store, reconciles);
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
