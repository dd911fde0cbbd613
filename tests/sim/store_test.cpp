// The object store alone: what each mutation stores, tells the watcher and publishes, and the
// invariants it checks from its own bookkeeping (issue 6 §8).
#include "tests/sim/support.hpp"

#include "kernel/kernel.hpp"
#include "model/accelerators.hpp"
#include "sim/settings.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;

namespace {

struct Fixture {
  Log log;
  std::vector<model::TimedChange> feed;
  kernel::Kernel k;
  RecordingWatcher watcher{log};
  Store store{k, [this](const model::TimedChange& c) { feed.push_back(c); }, "default"};
  scenarios::Scenario sc =
      scenario_with(generic_job_yaml("train", 2, 4) + generic_job_yaml("other", 1, 8));
  Fixture() { store.set_watcher(&watcher); }

  JobId add(std::size_t i) { return store.add_job(sc.workload.jobs.at(i).job, "test.yaml"); }
  std::vector<std::string> feed_names() const {
    std::vector<std::string> out;
    for (const auto& c : feed) out.push_back(change_name(c.change));
    return out;
  }
};

}  // namespace

TEST_CASE("store: jobs get dense ids, their key, queue and shape", "[sim][store]") {
  Fixture f;
  const JobId a = f.add(0);
  const JobId b = f.add(1);
  CHECK(a == 0);
  CHECK(b == 1);
  const StoredJob& j = f.store.job(a);
  CHECK(j.key == "default/train");
  CHECK(j.queue == "default");
  CHECK(j.shape.replicas == 2);
  CHECK(model::Accelerators().gpus_of(*j.shape.requests) == 8);
  CHECK(f.store.find_job("train") == &j);             // by name in the default namespace
  CHECK(f.store.find_job("default/other")->id == b);  // by key
  CHECK(f.store.find_job("nobody") == nullptr);
  CHECK_THROWS_WITH(f.add(0), Catch::Contains("two jobs named default/train"));
}

TEST_CASE("store: jobs that ask the same resources share one list of them (issue 49)",
          "[sim][store]") {
  // 2 pods of 4 GPUs and 1 of 8 ask the same in all; 1 pod of 2 does not.
  const scenarios::Scenario sc =
      scenario_with(generic_job_yaml("a", 2, 4) + generic_job_yaml("b", 1, 8) +
                    generic_job_yaml("c", 1, 2) + generic_job_yaml("d", 2, 4));
  kernel::Kernel k;
  Store store(k, {}, "default");
  std::vector<JobId> ids;
  for (const auto& s : sc.workload.jobs) ids.push_back(store.add_job(s.job, "t.yaml"));
  const auto requests = [&](std::size_t i) -> const auto& {
    return store.job(ids[i]).shape.requests;
  };
  CHECK(requests(0).shares_with(requests(1)));
  CHECK(requests(0).shares_with(requests(3)));
  CHECK_FALSE(requests(0).shares_with(requests(2)));
  CHECK(model::Accelerators().gpus_of(*requests(3)) == 8);
  CHECK(model::Accelerators().gpus_of(*requests(2)) == 2);
}

TEST_CASE("store: pods that ask the same share one list of requests (issue 49)", "[sim][store]") {
  Fixture f;
  const JobId id = f.add(0);
  f.store.create_pod(id, worker_pod("train", 0, 4));
  f.store.create_pod(id, worker_pod("train", 1, 4));
  f.store.create_pod(id, worker_pod("train", 2, 2));
  const auto& pods = f.store.job(id).pods;
  CHECK(pods[0].requests.shares_with(pods[1].requests));
  CHECK_FALSE(pods[0].requests.shares_with(pods[2].requests));
  CHECK(model::Accelerators().gpus_of(*pods[1].requests) == 4);
  CHECK(model::Accelerators().gpus_of(*pods[2].requests) == 2);
}

TEST_CASE("store: a pod's life is stored, watched and published in order", "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  const JobId id = f.add(0);
  f.store.create_pod(id, worker_pod("train", 0, 4));
  const model::Pod* p = f.store.pod("default/train-worker-0");
  REQUIRE(p);
  CHECK(p->metadata.uid == "pod-1");
  CHECK(p->metadata.namespace_ == "default");
  CHECK(p->generation == 0);
  CHECK(f.store.locate("default/train-worker-0").job == id);

  const PodRef bound = f.store.bind_pod("default/train-worker-0", "n0", -1);
  CHECK(bound.job == id);
  CHECK(bound.pod->node_name == "n0");
  CHECK(f.store.gpus_in_use("n0") == 4);
  CHECK(f.store.pods_on("n0") == std::vector<std::string>{"default/train-worker-0"});
  CHECK(model::Accelerators().gpus_of(f.store.queue_used("default")) == 4);

  f.store.set_pod_running(id, "default/train-worker-0");
  CHECK(f.store.pod("default/train-worker-0")->phase == model::PodPhase::Running);
  CHECK(f.store.terminate_pod(id, "default/train-worker-0", model::PodPhase::Succeeded, 0));
  CHECK_FALSE(
      f.store.terminate_pod(id, "default/train-worker-0", model::PodPhase::Failed, 1));  // already
  CHECK(f.store.gpus_in_use("n0") == 0);
  CHECK(f.store.pods_on("n0").empty());
  CHECK(model::Accelerators().gpus_of(f.store.queue_used("default")) == 0);

  // A terminated pod stays until deleted; its name can then be reused with the next generation.
  f.store.mark_deleted(id, "default/train-worker-0", model::DeletionReason::Restart);
  f.store.remove_pod(id, "default/train-worker-0");
  CHECK(f.store.pod("default/train-worker-0") == nullptr);
  f.store.create_pod(id, worker_pod("train", 0, 4));
  CHECK(f.store.pod("default/train-worker-0")->generation == 1);

  CHECK(f.log == Log{"watch: node n0", "watch: created train-worker-0",
                     "watch: bound default/train-worker-0 n0 -1",
                     "watch: released default/train-worker-0",
                     "watch: terminated default/train-worker-0 succeeded",
                     "watch: removed default/train-worker-0", "watch: created train-worker-0"});
  // The watcher is handed each pod's key as the store keeps it (the snapshot shares it).
  CHECK(f.watcher.created_keys ==
        std::vector<model::Text>{"default/train-worker-0", "default/train-worker-0"});
  CHECK(f.feed_names() == std::vector<std::string>{"NodeChanged", "PodCreated", "PodBound",
                                                   "PodRunning", "PodReleased", "PodDeleted",
                                                   "PodCreated"});
}

TEST_CASE("store: a deleted running pod holds its resources until removed", "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  const JobId id = f.add(0);
  f.store.create_pod(id, worker_pod("train", 0, 4));
  f.store.bind_pod("default/train-worker-0", "n0", -1);
  const model::Pod& p =
      f.store.mark_deleted(id, "default/train-worker-0", model::DeletionReason::Preemption);
  CHECK(p.deletion_timestamp);
  CHECK(p.deletion_reason == model::DeletionReason::Preemption);
  f.store.set_terminating(id, "default/train-worker-0");
  CHECK(f.store.gpus_in_use("n0") == 4);
  f.store.remove_pod(id, "default/train-worker-0");
  CHECK(f.store.gpus_in_use("n0") == 0);
  CHECK(f.log.back() == "watch: removed default/train-worker-0");
  CHECK(f.log.at(f.log.size() - 2) == "watch: released default/train-worker-0");
  CHECK(f.log.at(f.log.size() - 3) == "watch: terminating default/train-worker-0");
}

TEST_CASE("store: bindings that break the cluster's invariants are refused", "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  const JobId id = f.add(0);
  const JobId other = f.add(1);
  SECTION("a pod name reused while stored") {
    f.store.create_pod(id, worker_pod("train", 0, 4));
    CHECK_THROWS_AS(f.store.create_pod(id, worker_pod("train", 0, 4)), InvariantViolation);
  }
  SECTION("a node over-allocated") {
    f.store.create_pod(id, worker_pod("train", 0, 4));
    f.store.create_pod(other, worker_pod("other", 0, 8));
    f.store.bind_pod("default/train-worker-0", "n0", -1);
    CHECK_THROWS_WITH(f.store.bind_pod("default/other-worker-0", "n0", -1),
                      Catch::Contains("over-allocated"));
  }
  SECTION("a NotReady or cordoned node") {
    f.store.create_pod(id, worker_pod("train", 0, 4));
    f.store.set_node_ready("n0", false, "nic");
    CHECK_THROWS_WITH(f.store.bind_pod("default/train-worker-0", "n0", -1),
                      Catch::Contains("unavailable node n0"));
    f.store.set_node_ready("n0", true, "repair");
    f.store.set_node_unschedulable("n0", true, "cordon");
    CHECK_THROWS_WITH(f.store.bind_pod("default/train-worker-0", "n0", -1),
                      Catch::Contains("unavailable node n0"));
  }
  SECTION("a shared GPU over-committed") {
    model::Pod a = worker_pod("train", 0, 0);
    model::Pod b = worker_pod("train", 1, 0);
    a.requests = model::ResourceList{{model::kResourceGpuMilli, model::Quantity::from_units(600)}};
    b.requests = model::ResourceList{{model::kResourceGpuMilli, model::Quantity::from_units(500)}};
    f.store.create_pod(id, std::move(a));
    f.store.create_pod(id, std::move(b));
    f.store.bind_pod("default/train-worker-0", "n0", 3);
    CHECK(f.store.gpus_in_use("n0") == 1);  // a GPU holding a share counts whole
    CHECK_THROWS_WITH(f.store.bind_pod("default/train-worker-1", "n0", 3),
                      Catch::Contains("over-committed"));
  }
}

TEST_CASE("store: node changes are watched and published with their cause", "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  f.store.add_allocatable_gpus("n0", -1, "faulty-gpu");
  f.store.set_node_ready("n0", false, "psu");
  f.store.set_node_unschedulable("n0", true, "drain");
  REQUIRE(f.feed.size() == 4);
  const auto& last = std::get<model::NodeChanged>(f.feed.back().change);
  CHECK(last.cause == "drain");
  CHECK_FALSE(last.ready);
  CHECK(last.unschedulable);
  CHECK(last.gpu_milli == 7000);
  CHECK(std::get<model::NodeChanged>(f.feed.at(1).change).cause == "faulty-gpu");
  f.store.remove_node("n0");
  CHECK(f.store.node("n0") == nullptr);
  CHECK(f.log.back() == "watch: node-removed n0");
  f.store.add_node(gpu_node("n1", 8));
  CHECK_THROWS_AS(f.store.add_node(gpu_node("n1", 8)), std::logic_error);
}

TEST_CASE("store: what a node holds is booked by node, and a gone node takes no binding",
          "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  f.store.add_node(gpu_node("n1", 8));
  const JobId id = f.add(0);
  f.store.create_pod(id, worker_pod("train", 0, 4));
  f.store.create_pod(id, worker_pod("train", 1, 4));
  CHECK_THROWS_AS(f.store.bind_pod("default/train-worker-0", "nowhere", -1), std::out_of_range);
  f.store.bind_pod("default/train-worker-0", "n0", -1);
  f.store.bind_pod("default/train-worker-1", "n1", -1);
  CHECK(f.store.gpus_in_use("n0") == 4);
  CHECK(f.store.gpus_in_use("n1") == 4);
  CHECK(f.store.pods_on("n1") == std::vector<std::string>{"default/train-worker-1"});
  CHECK(f.store.pods_on("nowhere").empty());
  CHECK(f.store.gpus_in_use("nowhere") == 0);
  CHECK(f.store.node_used("nowhere").empty());
  // A removed node takes no new binding; what its pods held is still given back when they end.
  f.store.remove_node("n1");
  f.store.create_pod(f.add(1), worker_pod("other", 0, 8));
  CHECK_THROWS_AS(f.store.bind_pod("default/other-worker-0", "n1", -1), std::out_of_range);
  CHECK(f.store.terminate_pod(id, "default/train-worker-1", model::PodPhase::Failed, 137));
  CHECK(f.store.gpus_in_use("n1") == 0);
  CHECK(f.store.pods_on("n1").empty());
  CHECK(f.store.gpus_in_use("n0") == 4);  // the other node's book is its own
  // Added again, the node takes bindings.
  f.store.add_node(gpu_node("n1", 8));
  CHECK(f.store.bind_pod("default/other-worker-0", "n1", -1).pod->node_name == "n1");
  CHECK(f.store.gpus_in_use("n1") == 8);
}

TEST_CASE("store: a finished job is compacted to its outcome", "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  const JobId id = f.add(0);
  f.store.create_pod(id, worker_pod("train", 0, 4));
  model::PodGroup g;
  g.metadata.name = "train";
  g.metadata.namespace_ = "default";
  f.store.set_pod_group(id, std::move(g), false);
  CHECK(f.store.job(id).pod_group->metadata.creation_timestamp == kernel::SimTime{});
  model::JobStatus done;
  done.phase = model::JobPhase::Succeeded;
  f.store.set_status(id, done);
  CHECK_FALSE(f.store.compactable(id));  // a pod has not terminated
  f.store.terminate_pod(id, "default/train-worker-0", model::PodPhase::Succeeded, 0);
  REQUIRE(f.store.compactable(id));
  f.store.set_keep_outcomes(true);
  f.store.compact(id);
  const StoredJob& j = f.store.job(id);
  CHECK(j.compacted);
  CHECK(j.pods.empty());
  CHECK_FALSE(j.pod_group);
  CHECK(f.store.outcome(id).phase == model::JobPhase::Succeeded);
  CHECK(f.store.outcome(id).name == "default/train");
  CHECK(f.store.pod("default/train-worker-0") == nullptr);
  CHECK(f.log.back() == "watch: group-removed default/train");
  CHECK(f.feed_names().back() == "JobLeft");
}

// The watcher's hints (StoreWatcher): what pod_group_changed and pod_created returned comes back
// with the same object's later changes, also after another pod of the job left its vector.
TEST_CASE("store: the watcher's hints come back with the same object's changes", "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  const JobId id = f.add(0);
  model::PodGroup g;
  g.metadata.name = "train";
  g.metadata.namespace_ = "default";
  f.store.set_pod_group(id, model::PodGroup(g), false);  // returns 1000
  f.store.set_pod_group(id, model::PodGroup(g), true);   // gets 1000, returns 1001
  f.store.create_pod(id, worker_pod("train", 0, 4));     // gets 1001, returns 1
  f.store.create_pod(id, worker_pod("train", 1, 4));     // returns 2
  f.store.bind_pod("default/train-worker-1", "n0", -1);
  f.store.mark_deleted(id, "default/train-worker-1", model::DeletionReason::Preemption);
  f.store.set_terminating(id, "default/train-worker-1");
  f.store.remove_pod(id, "default/train-worker-0");  // worker-1 moves to the front
  f.store.terminate_pod(id, "default/train-worker-1", model::PodPhase::Failed, 137);
  model::JobStatus done;
  done.phase = model::JobPhase::Failed;
  f.store.set_status(id, done);
  REQUIRE(f.store.compactable(id));
  f.store.compact(id);
  using Hints = std::vector<std::pair<std::string, std::int32_t>>;
  CHECK(f.watcher.hints_back == Hints{{"train", -1},
                                      {"train", 1000},
                                      {"train-worker-0 group", 1001},
                                      {"train-worker-1 group", 1001},
                                      {"default/train-worker-1", 2},
                                      {"default/train-worker-1", 2},
                                      {"default/train", 1001}});
}

// Memory flat in finished jobs (issue 20): a compacted job's record is released.
TEST_CASE("store: a compacted job leaves; its name stays taken and edits of it change nothing",
          "[sim][store]") {
  Fixture f;
  f.store.add_node(gpu_node("n0", 8));
  const JobId id = f.add(0);
  const JobId other = f.add(1);
  model::JobStatus done;
  done.phase = model::JobPhase::Failed;
  f.store.set_status(id, done);
  REQUIRE(f.store.compactable(id));  // no pods at all
  f.store.compact(id);
  CHECK(f.store.job(id).compacted);
  CHECK(f.store.job(id).key.empty());  // the shared released record, not the job's
  CHECK(f.store.find_job("train") == nullptr);
  CHECK(f.store.find_job_id("train") == id);
  CHECK(f.store.find_job_id("default/train") == id);
  CHECK_FALSE(f.store.find_job_id("nope"));
  CHECK_THROWS_AS(f.store.outcome(id), std::logic_error);  // not kept unless asked (--check)
  CHECK(f.store.outcome(other).name == "default/other");
  // Operations may still name it: nothing happens, nothing is published.
  const auto published = f.feed.size();
  f.store.set_paused(id, true);
  f.store.set_job_priority(id, 9);
  f.store.set_expected_replicas(id, 3);
  f.store.set_tensorboard_ready(id);
  CHECK(f.feed.size() == published);
  CHECK_THROWS_AS(f.store.set_status(id, done), std::logic_error);
  CHECK_THROWS_AS(f.store.add_job(f.sc.workload.jobs.at(0).job, "again.yaml"), sim::ScenarioError);
  const auto objects = f.store.objects();
  CHECK(std::none_of(objects.begin(), objects.end(), [](const scenarios::Object& o) {
    return std::holds_alternative<model::GenericJob>(o) &&
           std::get<model::GenericJob>(o).metadata.name == "train";
  }));
}

TEST_CASE("store: expectedReplicas edits the spec and the clamped shape", "[sim][store]") {
  const auto sc = load(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: t}
spec:
  horizon: 1d
  cluster:
    nodePools: [{name: gpu, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  scheduler: {name: t9k}
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
          elastic: {enabled: true, minReplicas: 2, maxReplicas: 4, expectedReplicas: 3}
          replicaSpecs:
          - type: worker
            restartPolicy: OnFailure
            template: {spec: {containers: [{name: pytorch, image: t, resources: {limits: {nvidia.com/gpu: 2}}}]}}
)");
  kernel::Kernel k;
  Log log;
  RecordingWatcher watcher(log);
  Store store(k, {}, "default");
  store.set_watcher(&watcher);
  const JobId id = store.add_job(sc.workload.jobs.at(0).job, "t.yaml");
  const model::JobShape& s = store.job(id).shape;
  CHECK(s.elastic);
  CHECK(s.expected == 3);
  CHECK(model::Accelerators().gpus_of(*s.requests) == 6);  // expectedReplicas pods at submission
  CHECK(s.gpus_per_first_pod == 2);
  store.set_expected_replicas(id, 9);
  CHECK(store.job(id).shape.expected == 4);  // clamped to maxReplicas
  const auto& spec = std::get<model::PyTorchTrainingJob>(store.job(id).job).spec;
  CHECK(spec.elastic->expected_replicas == 9);  // the spec holds what was written
  store.set_paused(id, true);
  CHECK(model::run_mode_of(store.job(id).job).pause.enabled);
}
