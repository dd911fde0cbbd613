// The kubelet alone, over an in-memory store, with fakes for training and the reconcile queue:
// start and stop latencies, graceful deletion, Unknown -> Failed after the detection delay
// (§11 Q13), and what each step tells the other rooms.
#include "tests/sim/support.hpp"

#include <algorithm>

#include "sim/kubelet.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;
using model::PodPhase;

namespace {

kernel::SimTime at_s(double s) {
  return kernel::SimTime{kernel::SimDuration{static_cast<std::int64_t>(s * 1e6)}};
}

struct Fixture {
  Log log;
  kernel::Kernel k;
  scenarios::Scenario sc =
      scenario_with(generic_job_yaml("train", 2, 4));  // start 5 s, stop 1 s (defaults)
  WorldSettings st;                                    // detection delay 340 s
  kernel::RngStreams streams{1, 0};
  RecordingWatcher watcher{log};
  Store store{k, {}, "default"};
  FakeTraining training{log};
  FakeReconciles reconciles{log};
  Kubelet kubelet{sc, st, k, streams, store, reconciles};
  JobId id = 0;

  Fixture() {
    store.set_watcher(&watcher);
    kubelet.connect(training);
    for (EventKind kind : Kubelet::kKinds) k.route(kind, &kubelet);
    store.add_node(gpu_node("n0", 8));
    store.add_node(gpu_node("n1", 8));
    id = store.add_job(sc.workload.jobs.at(0).job, "test.yaml");
    store.admit(id);
    log.clear();
  }
  // A pod of the job bound to `node` (not started).
  std::string bound_pod(int rank, const std::string& node) {
    store.create_pod(id, worker_pod("train", rank, 4));
    const std::string key = fmt::format("default/train-worker-{}", rank);
    store.bind_pod(key, node, -1);
    return key;
  }
  std::string running_pod(int rank, const std::string& node) {
    const std::string key = bound_pod(rank, node);
    store.set_pod_running(id, key);
    return key;
  }
  PodPhase phase(const std::string& key) const { return store.pod(key)->phase; }
  bool logged(const std::string& line) const {
    return std::find(log.begin(), log.end(), line) != log.end();
  }
};

}  // namespace

TEST_CASE("kubelet: a bound pod runs one start latency later, then its job hears of it",
          "[sim][kubelet]") {
  Fixture f;
  const std::string key = f.bound_pod(0, "n0");
  f.log.clear();
  f.kubelet.pod_bound(f.id, key, 0);
  f.k.run_until(at_s(4.999));
  CHECK(f.phase(key) == PodPhase::Pending);
  CHECK(f.log.empty());
  f.k.run_until(at_s(5));
  CHECK(f.phase(key) == PodPhase::Running);
  CHECK(f.store.pod(key)->start_time == at_s(5));
  CHECK(f.log == Log{"enqueue 0", "evaluate 0"});
}

TEST_CASE("kubelet: a pod recreated meanwhile is not started by its predecessor's binding",
          "[sim][kubelet]") {
  Fixture f;
  const std::string key = f.bound_pod(0, "n0");
  f.kubelet.pod_bound(f.id, key, 0);
  f.store.mark_deleted(f.id, key, model::DeletionReason::Preemption);
  f.store.remove_pod(f.id, key);
  f.store.create_pod(f.id, worker_pod("train", 0, 4));  // generation 1, not bound
  f.k.run_until(at_s(10));
  CHECK(f.phase(key) == PodPhase::Pending);
  CHECK(f.store.pod(key)->generation == 1);
}

TEST_CASE("kubelet: graceful deletion keeps a running pod's resources for the stop latency",
          "[sim][kubelet]") {
  Fixture f;
  const std::string key = f.running_pod(0, "n0");
  f.log.clear();
  f.kubelet.delete_pod(f.id, "train-worker-0", model::DeletionReason::Preemption);
  CHECK(f.store.pod(key)->deletion_timestamp);
  CHECK(f.store.gpus_in_use("n0") == 4);
  CHECK(f.log == Log{"blame-if-unset 0 preemption", "watch: terminating default/train-worker-0",
                     "evaluate 0"});
  f.log.clear();
  f.kubelet.delete_pod(f.id, "train-worker-0",
                       model::DeletionReason::Drain);  // already deleting: nothing
  CHECK(f.log.empty());
  f.k.run_until(at_s(1));  // stop latency 1 s, grace period 30 s
  CHECK(f.store.pod(key) == nullptr);
  CHECK(f.store.gpus_in_use("n0") == 0);
  CHECK(f.log == Log{"watch: released default/train-worker-0",
                     "watch: removed default/train-worker-0", "evaluate 0", "enqueue 0"});
}

TEST_CASE("kubelet: the grace period caps the stop latency", "[sim][kubelet]") {
  Fixture f;
  f.sc.kubelet.pod_stop_latency = scenarios::DurationDistribution::constant(kernel::seconds(60));
  model::Pod p = worker_pod("train", 0, 4);
  p.termination_grace_period_seconds = 7;
  f.store.create_pod(f.id, std::move(p));
  f.store.bind_pod("default/train-worker-0", "n0", -1);
  f.kubelet.delete_pod(f.id, "train-worker-0", model::DeletionReason::User);
  f.k.run_until(at_s(6.9));
  CHECK(f.store.pod("default/train-worker-0") != nullptr);
  f.k.run_until(at_s(7));
  CHECK(f.store.pod("default/train-worker-0") == nullptr);
}

TEST_CASE("kubelet: a pod that runs nothing is gone at once when deleted", "[sim][kubelet]") {
  Fixture f;
  f.store.create_pod(f.id, worker_pod("train", 0, 4));  // never bound
  f.log.clear();
  f.kubelet.delete_pod(f.id, "train-worker-0", model::DeletionReason::Cleanup);
  CHECK(f.store.pod("default/train-worker-0") == nullptr);
  CHECK(f.log == Log{"watch: removed default/train-worker-0", "evaluate 0", "enqueue 0"});
}

TEST_CASE("kubelet: pods of lost nodes turn Unknown now and Failed (137) after the detection delay",
          "[sim][kubelet]") {
  Fixture f;
  const std::string a = f.running_pod(0, "n0");
  const std::string b = f.running_pod(1, "n1");
  f.log.clear();
  f.kubelet.nodes_lost({"n0"}, "psu");
  CHECK(f.phase(a) == PodPhase::Unknown);
  CHECK(f.phase(b) == PodPhase::Running);
  CHECK(f.store.gpus_in_use("n0") == 4);  // still bound until detected
  CHECK(f.log == Log{"blame 0 fault", "evaluate 0", "enqueue 0"});
  f.log.clear();
  f.k.run_until(at_s(339.9));
  CHECK(f.phase(a) == PodPhase::Unknown);
  f.k.run_until(at_s(340));
  CHECK(f.phase(a) == PodPhase::Failed);
  CHECK(f.store.pod(a)->exit_code == 137);
  CHECK(f.store.gpus_in_use("n0") == 0);
  CHECK(f.phase(b) == PodPhase::Running);
  CHECK(f.logged("enqueue 0"));
  CHECK(f.logged("blame-if-unset 0 software"));  // a non-zero exit without a cause given
}

TEST_CASE("kubelet: terminate charges the given cause before the containers stop",
          "[sim][kubelet]") {
  Fixture f;
  const std::string key = f.running_pod(0, "n0");
  f.log.clear();
  f.kubelet.terminate(f.id, key, PodPhase::Failed, 137, model::LossCause::MaxDuration);
  CHECK(f.phase(key) == PodPhase::Failed);
  CHECK(f.log == Log{"blame 0 maxDuration", "watch: released default/train-worker-0",
                     "watch: terminated default/train-worker-0 failed", "blame-if-unset 0 software",
                     "evaluate 0"});
  f.log.clear();
  f.kubelet.terminate(f.id, key, PodPhase::Succeeded, 0);  // already terminated: no re-evaluation
  CHECK(f.log.empty());
}

TEST_CASE("kubelet: a TensorBoard is ready one pod start latency after it is created",
          "[sim][kubelet]") {
  Fixture f;
  f.kubelet.create_tensorboard(f.id);
  f.kubelet.create_tensorboard(f.id);  // exists: no second start
  REQUIRE(f.store.job(f.id).tensorboard);
  CHECK_FALSE(f.store.job(f.id).tensorboard->ready);
  f.k.run_until(at_s(5));
  CHECK(f.store.job(f.id).tensorboard->ready);
  CHECK(f.log == Log{"enqueue 0"});
}

TEST_CASE("kubelet: a random faults.detectionDelay is drawn per failure, not replaced by its mean",
          "[sim][kubelet]") {
  Fixture f;
  const auto with_delay = load(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: detection}
spec:
  horizon: 2d
  cluster:
    nodePools: [{name: gpu, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  faults: {detectionDelay: {exponential: {mean: 300s}}}
  workload: {jobs: []}
)");
  f.sc.faults.detection_delay = with_delay.faults.detection_delay;
  const std::string a = f.running_pod(0, "n0");
  const std::string b = f.running_pod(1, "n1");
  f.kubelet.nodes_lost({"n0"}, "psu");
  f.kubelet.nodes_lost({"n1"}, "nic");
  std::optional<kernel::SimTime> failed_a, failed_b;
  while (!(failed_a && failed_b) && f.k.step()) {
    if (!failed_a && f.phase(a) == PodPhase::Failed) failed_a = f.k.now();
    if (!failed_b && f.phase(b) == PodPhase::Failed) failed_b = f.k.now();
  }
  REQUIRE(failed_a);
  REQUIRE(failed_b);
  CHECK(*failed_a != *failed_b);  // two draws (equal only with probability 0)
  CHECK(*failed_a != at_s(300));  // not the mean
  CHECK(*failed_b != at_s(300));
  CHECK(f.store.pod(a)->exit_code == 137);
}
