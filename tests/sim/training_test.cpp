// Training alone, over an in-memory store whose pods a test scripts (created, bound, running,
// stopped), with a fake kubelet and reconcile queue: segments, checkpoints and the progress lost
// to each cause (faults-and-validation §1.5, §11 Q8), speed-up models, software failures,
// the end of the work and orphans.
#include "tests/sim/support.hpp"

#include <cmath>

#include "sim/training.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;
using model::LossCause;
using model::PodPhase;

namespace {

constexpr std::int64_t kMin = 60LL * 1000000;
kernel::SimTime at_min(double m) {
  return kernel::SimTime{kernel::SimDuration{std::llround(m * 60e6)}};
}

struct Fixture {
  Log log, watched;
  std::vector<model::TimedChange> feed;
  kernel::Kernel k;
  scenarios::Scenario sc;
  WorldSettings st;
  kernel::RngStreams streams{7, 0};
  RecordingWatcher watcher{watched};
  Store store{k, [this](const model::TimedChange& c) { feed.push_back(c); }, "default"};
  FakePods pods{log};
  FakeReconciles reconciles{log};
  Training training{sc, st, k, streams, store, pods, reconciles};
  JobId id = 0;

  explicit Fixture(const std::string& behaviour, int replicas = 2, const std::string& job_yaml = "")
      : sc(scenario_with(job_yaml.empty() ? generic_job_yaml("train", replicas, 4, behaviour)
                                          : job_yaml)) {
    store.set_watcher(&watcher);
    for (EventKind kind : Training::kKinds) k.route(kind, &training);
    store.add_node(gpu_node("n0", 8));
    store.add_node(gpu_node("n1", 8));
    id = store.add_job(sc.workload.jobs.at(0).job, "test.yaml");
    training.add_job(id, sc.workload.jobs.at(0).behaviour);
    store.admit(id);
  }
  std::string key(int rank) const { return fmt::format("default/train-worker-{}", rank); }
  // The pod of `rank` runs (as the kubelet would report), and training re-evaluates.
  void run_pod(int rank) {
    store.create_pod(id, worker_pod("train", rank, 4));
    store.bind_pod(key(rank), rank % 2 ? "n1" : "n0", -1);
    store.set_pod_running(id, key(rank));
    training.pod_started(id, key(rank));
    training.evaluate(id);
  }
  // The terminated pod of `rank` is removed and recreated (its next generation), and runs.
  void recreate_pod(int rank) {
    store.remove_pod(id, key(rank));
    run_pod(rank);
  }
  // The pod's containers stop (as the kubelet would report), and training re-evaluates.
  void stop_pod(int rank, std::int32_t code, std::optional<LossCause> cause = std::nullopt) {
    if (cause) training.blame(id, *cause);
    store.terminate_pod(id, key(rank), code == 0 ? PodPhase::Succeeded : PodPhase::Failed, code);
    training.blame_if_unset(id, code == 0 ? LossCause::Other : LossCause::Software);
    training.evaluate(id);
  }
  template <class C>
  std::vector<C> changes() const {
    std::vector<C> out;
    for (const auto& c : feed) {
      if (const auto* x = std::get_if<C>(&c.change)) out.push_back(*x);
    }
    return out;
  }
  model::Int128 committed() const {
    model::Int128 sum = 0;
    for (const auto& c : changes<model::ProgressCommitted>()) sum += c.gpu_milli_us;
    return sum;
  }
};

model::Int128 gpu_min(double minutes, int gpus) {
  return static_cast<model::Int128>(minutes * kMin) * gpus * 1000;
}

}  // namespace

TEST_CASE("training: a rigid job trains for its run time once all its pods run",
          "[sim][training]") {
  Fixture f("{runTime: 1h}");
  CHECK(f.training.ideal_run_us(f.id) == 60 * kMin);
  f.run_pod(0);
  CHECK(f.changes<model::TrainingChanged>().empty());  // one of two pods: no training
  f.k.run_until(at_min(10));
  f.run_pod(1);
  REQUIRE(f.changes<model::TrainingChanged>().size() == 1);
  CHECK(f.changes<model::TrainingChanged>().at(0).gpu_milli == 8000);
  f.k.run_until(at_min(69.99));
  CHECK(f.log.empty());
  f.k.run_until(at_min(70));
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Succeeded 0 other",
                     "terminate 0 default/train-worker-1 Succeeded 0 other", "enqueue 0"});
  CHECK(f.committed() == gpu_min(60, 8));
  CHECK(f.changes<model::ProgressLost>().empty());
  // Made from the moment training began to the end (the time series draws it there).
  const auto kept = f.changes<model::ProgressCommitted>();
  REQUIRE(kept.size() == 1);
  CHECK(kept.at(0).from == at_min(10));
  CHECK(kept.at(0).until == at_min(70));
}

TEST_CASE("training: a stop loses what came after the last checkpoint, charged to its cause",
          "[sim][training]") {
  // Checkpoints every 10 min (writing one costs 1 min); a pod fails 25 min in: 2 checkpoints
  // saved 20 min of work; the 3 min since (the 2nd checkpoint ended at 22 min) are lost.
  Fixture f("{runTime: 1h, checkpointInterval: 10m, checkpointCost: 1m}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(25));
  f.stop_pod(0, 137, LossCause::Fault);
  const auto lost = f.changes<model::ProgressLost>();
  REQUIRE(lost.size() == 1);
  CHECK(lost.at(0).cause == LossCause::Fault);
  CHECK(lost.at(0).gpu_milli_us == gpu_min(3, 8));
  CHECK(f.committed() == gpu_min(20, 8));
  // The kept 20 min were made in the first 22 (two cycles of 10 min work and a 1 min write),
  // not over the 25 min the segment ran: what was lost is not drawn as productive.
  const auto kept = f.changes<model::ProgressCommitted>();
  REQUIRE(kept.size() == 1);
  CHECK(kept.at(0).from == at_min(0));
  CHECK(kept.at(0).until == at_min(22));
  f.k.run_until(at_min(200));
  // The end of the work was cancelled with the segment; the only exit is the surviving pod's,
  // stranded by its failed, never replaced peer for the 15-minute rendezvous timeout.
  CHECK(f.log == Log{"terminate 0 default/train-worker-1 Failed 1 other", "enqueue 0"});
}

TEST_CASE("training: without a cause given, the exit code decides what a stop is charged to",
          "[sim][training]") {
  Fixture f("{runTime: 1h}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(30));
  f.stop_pod(1, 2);
  const auto lost = f.changes<model::ProgressLost>();
  REQUIRE(lost.size() == 1);
  CHECK(lost.at(0).cause == LossCause::Software);  // no checkpoints: all 30 min lost
  CHECK(lost.at(0).gpu_milli_us == gpu_min(30, 8));
}

TEST_CASE("training: a restart pays the restart overhead before progress", "[sim][training]") {
  Fixture f("{runTime: 1h, restartOverhead: 5m}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(64.99));
  CHECK(f.log.empty());
  f.k.run_until(at_min(65));
  CHECK(f.log.size() == 3);
  CHECK(f.committed() == gpu_min(60, 8));
}

TEST_CASE("training: scaling models give an elastic job its speed", "[sim][training]") {
  const std::string elastic = R"(    - submitAt: 0s
      behaviour: {work: 4h, scaling: {model: table, throughput: {2: 1.8, 4: 3.2}}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: PyTorchTrainingJob
        metadata: {name: train}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          torchrunConfig: {enabled: true}
          elastic: {enabled: true, minReplicas: 1, maxReplicas: 8, expectedReplicas: 4}
          replicaSpecs:
          - type: worker
            restartPolicy: OnFailure
            template: {spec: {containers: [{name: pytorch, image: t, resources: {limits: {nvidia.com/gpu: 4}}}]}}
)";
  Fixture f("", 0, elastic);
  CHECK(f.training.speedup(f.id, 1) == Approx(0.9));  // below the table: proportional
  CHECK(f.training.speedup(f.id, 2) == Approx(1.8));
  CHECK(f.training.speedup(f.id, 3) == Approx(2.5));  // interpolated
  CHECK(f.training.speedup(f.id, 4) == Approx(3.2));
  CHECK(f.training.speedup(f.id, 8) == Approx(3.2));  // beyond the table: no further gain
  CHECK(f.training.speedup(f.id, 0) == 0);
  // 4 h of one-replica work at the submitted 4 replicas: 4 h / 3.2.
  CHECK(f.training.ideal_run_us(f.id) == std::llround(240 * kMin / 3.2));
  // One running replica is enough for an elastic job (minReplicas 1): it trains at 0.9.
  f.run_pod(0);
  REQUIRE(f.changes<model::TrainingChanged>().size() == 1);
  f.k.run_until(at_min(240 / 0.9 + 0.01));
  CHECK(f.log.size() == 2);  // worker-0 exits, the job is enqueued
}

TEST_CASE("training: software failures strike a running pod at the job's hazard",
          "[sim][training]") {
  const std::string behaviour =
      "{runTime: 100h, failure: {hazardPerHour: 2, exitCodes: [{code: 143, weight: 1}]}}";
  auto first_failure = [&] {
    Fixture f(behaviour);
    f.run_pod(0);
    f.run_pod(1);
    while (f.log.empty() && f.k.step()) {
    }
    REQUIRE(f.log.size() == 2);
    CHECK_THAT(f.log.at(0), Catch::StartsWith("terminate 0 default/train-worker-") &&
                                Catch::EndsWith("Failed 143 software"));
    CHECK(f.log.at(1) == "enqueue 0");
    return f.k.now();
  };
  const auto t = first_failure();
  CHECK(t > kernel::SimTime{});
  CHECK(t < at_min(600));       // mean 30 min: 10 h is 20 means
  CHECK(first_failure() == t);  // the job's own stream: the same time again
}

TEST_CASE("training: a finished job stops training; its pods exit after the orphan timeout",
          "[sim][training]") {
  Fixture f("{runTime: 10h}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(30));
  f.training.job_finished(f.id);
  CHECK(f.changes<model::TrainingChanged>().back().gpu_milli == 0);
  CHECK(f.changes<model::ProgressLost>().at(0).cause == LossCause::Other);
  f.training.job_finished(f.id);  // once
  f.k.run_until(at_min(30 + 14.99));
  CHECK(f.log.empty());
  f.k.run_until(at_min(45));  // 900 s later
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Failed 1 -",
                     "terminate 0 default/train-worker-1 Failed 1 -", "enqueue 0"});
}

TEST_CASE("training: at the horizon a running segment's progress counts as productive",
          "[sim][training]") {
  Fixture f("{runTime: 10h, checkpointInterval: 1h}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(90));
  f.training.finish();
  CHECK(f.committed() == gpu_min(90, 8));
  REQUIRE(f.changes<model::ProgressCommitted>().size() == 1);
  CHECK(f.changes<model::ProgressCommitted>().at(0).until == at_min(90));
  CHECK(f.changes<model::ProgressLost>().empty());
}

TEST_CASE(
    "training: a scripted run ends its pod at its time with its code, generation by generation",
    "[sim][training]") {
  Fixture f(
      "{runTime: 1h, replicas: [{type: worker, rank: 1, runs: [{exitCode: 137, after: 10m}, "
      "{exitCode: 3}]}]}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(9.99));
  CHECK(f.log.empty());
  f.k.run_until(at_min(10));
  CHECK(f.log == Log{"terminate 0 default/train-worker-1 Failed 137 software", "enqueue 0"});
  f.log.clear();
  f.stop_pod(1, 137);
  f.recreate_pod(1);  // generation 1: the last run, without a time: ends with the work, code 3
  f.k.run_until(at_min(10 + 60));
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Succeeded 0 other",
                     "terminate 0 default/train-worker-1 Failed 3 other", "enqueue 0"});
}

TEST_CASE("training: a pod started after the work completed reruns it from the last checkpoint",
          "[sim][training]") {
  // Checkpoints every 25 min: the last before the end (60 min) is at 50 min, so a rerun is 10 min.
  Fixture f("{runTime: 1h, checkpointInterval: 25m, failure: {finalExitCode: 137}}");
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(60));
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Failed 137 other",
                     "terminate 0 default/train-worker-1 Failed 137 other", "enqueue 0"});
  f.log.clear();
  f.stop_pod(0, 137);
  f.stop_pod(1, 137);
  f.recreate_pod(0);  // restarted (ExitCode: 137 is retryable)
  f.k.run_until(at_min(69.99));
  CHECK(f.log.empty());
  f.k.run_until(at_min(70));
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Failed 137 software", "enqueue 0"});
  // The rerun is allocated time, not productive: no new segment started.
  CHECK(f.changes<model::TrainingChanged>().back().gpu_milli == 0);
}

TEST_CASE(
    "training: a rigid job's pods stranded by a member that is never replaced exit after the "
    "timeout",
    "[sim][training]") {
  Fixture f("{runTime: 10h}", 3);
  f.run_pod(0);
  f.run_pod(1);
  f.run_pod(2);
  f.k.run_until(at_min(5));
  f.stop_pod(2, 1);  // rank 2 fails; nothing recreates it
  f.k.run_until(at_min(5 + 14.99));
  CHECK(f.log.empty());
  f.k.run_until(at_min(20));  // 900 s (orphanTimeout) later
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Failed 1 other",
                     "terminate 0 default/train-worker-1 Failed 1 other", "enqueue 0"});
}

TEST_CASE("training: a member replaced within the timeout strands nothing", "[sim][training]") {
  Fixture f("{runTime: 10h}", 2);
  f.run_pod(0);
  f.run_pod(1);
  f.k.run_until(at_min(5));
  f.stop_pod(1, 137);
  f.k.run_until(at_min(10));
  f.recreate_pod(1);  // the controller's replacement (say, after a restart back-off)
  f.k.run_until(at_min(30));
  CHECK(f.log.empty());
  CHECK(f.changes<model::TrainingChanged>().back().gpu_milli == 8000);  // training again
}
