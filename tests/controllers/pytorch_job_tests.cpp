// PyTorchTrainingJob (§4), restart policies and backoffLimit (§2, §11 Q4, Q5, Q7, Q12), elastic
// mode (§4.3, §11 Q8), TensorBoard (§9) and the upstream pitfalls of faults-and-validation §1.4.
#include "support.hpp"

#include "controllers/engine.hpp"

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;

namespace {

void fail_and_replace(World& w, const std::string& name, std::int32_t code = 1) {
  w.fail(name, code);
  w.step();
  w.step();
  w.run(name);
  w.step();
}

World elastic_world(std::int32_t min, std::int32_t max, std::int32_t expected,
                    std::vector<TypeSpec> types = {{"worker", 1}}) {
  auto job = make_pytorch(std::move(types));
  job.spec.elastic = model::ElasticConfig{true, min, max, expected};
  job.spec.torchrun_config = model::TorchrunConfig{};
  job.spec.torchrun_config->enabled = true;
  return World(job);
}

}  // namespace

TEST_CASE("§4.1 master is rank 0 of the first replica type") {
  World w(make_pytorch({{"ps", 1}, {"worker", 2}}));
  w.start();
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Running);  // a worker's success does not decide the job
  w.succeed("job-ps-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
}

TEST_CASE("§4.1 master success => Succeeded while workers still run") {
  World w(make_pytorch({{"worker", 3}}));
  w.start();
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  CHECK(w.deletes().empty());  // §11 Q16: cleanUpPolicy None by default
}

TEST_CASE("§2.3 backoffLimit is shared by all replicas of the job") {
  World w(make_pytorch({{"master", 1}, {"worker", 2}}, RestartPolicyType::OnFailure, 3));
  w.start();
  fail_and_replace(w, "job-worker-0");
  fail_and_replace(w, "job-worker-1");
  fail_and_replace(w, "job-master-0");
  CHECK(w.backoff() == 3);
  CHECK(w.task_restarts("worker") == 2);
  CHECK(w.task_restarts("master") == 1);
  w.fail("job-worker-1");
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);  // the budget is spent
  CHECK(w.phase() == JobPhase::Failed);  // §11 Q7 default: permanent worker failure
}

TEST_CASE(
    "§2.3 §11 Q4 boundary: restart while backoffCount < backoffLimit, then the master failing "
    "again fails the job") {
  World w(make_pytorch({{"master", 1}, {"worker", 1}}, RestartPolicyType::OnFailure, 2));
  w.start();
  fail_and_replace(w, "job-master-0");
  fail_and_replace(w, "job-master-0");
  CHECK(w.phase() == JobPhase::Running);
  CHECK(w.backoff() == 2);
  w.fail("job-master-0", 3);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.backoff() == 2);
  CHECK(w.cond(JobConditionType::Failed).message ==
        "PyTorchTrainingJob job has failed: job-master-0 failed with exit code 3");
}

TEST_CASE("§11 Q4 backoffLimit 0: no restart at all") {
  World w(make_pytorch({{"worker", 2}}, RestartPolicyType::OnFailure, 0));
  w.start();
  w.fail("job-worker-0", 137);
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.backoff() == 0);
}

TEST_CASE("§11 Q7 default: a worker failing permanently fails the job") {
  World w(make_pytorch({{"master", 1}, {"worker", 2}}, RestartPolicyType::Never));
  w.start();
  w.fail("job-worker-1", 1);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.cond(JobConditionType::Failed).message ==
        "PyTorchTrainingJob job has failed: job-worker-1 failed with exit code 1");
}

TEST_CASE("§11 Q7 option master-only: a worker's permanent failure leaves the job running") {
  World w(make_pytorch({{"master", 1}, {"worker", 2}}, RestartPolicyType::Never));
  w.options.permanent_failure_scope = ControllerOptions::PermanentFailureScope::MasterOnly;
  w.start();
  w.fail("job-worker-1", 1);
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  CHECK(w.status().aggregate.failed == 1);
  w.succeed("job-master-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
}

TEST_CASE(
    "§11 Q7 option master-only: the master failing after the budget is spent fails the job "
    "(§2.3)") {
  World w(make_pytorch({{"master", 1}, {"worker", 1}}, RestartPolicyType::OnFailure, 1));
  w.options.permanent_failure_scope = ControllerOptions::PermanentFailureScope::MasterOnly;
  w.start();
  fail_and_replace(w, "job-worker-0");
  w.fail("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.fail("job-master-0");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§11 Q4 option Kubeflow: the job fails as soon as restarts reach backoffLimit") {
  World w(make_pytorch({{"master", 1}, {"worker", 1}}, RestartPolicyType::OnFailure, 2));
  w.options.backoff_limit_rule = ControllerOptions::BackoffLimitRule::KubeflowReachLimit;
  w.start();
  fail_and_replace(w, "job-worker-0");
  CHECK(w.phase() == JobPhase::Running);
  w.fail("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.backoff() == 2);
  CHECK(w.cond(JobConditionType::Failed).reason == "BackoffLimitExceeded");
  CHECK(w.cond(JobConditionType::Failed).message ==
        "PyTorchTrainingJob job has failed because it has reached the specified backoff limit");
}

TEST_CASE("§2.2 ExitCode: 137 is retryable, 1 is permanent") {
  World w(make_pytorch({{"worker", 2}}, RestartPolicyType::ExitCode, 5));
  w.start();
  w.fail("job-worker-1", 137);
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  w.step();
  w.run("job-worker-1");
  w.step();
  w.fail("job-worker-1", 1);
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.backoff() == 1);
}

TEST_CASE("§2.2 ExitCode: the documented retryable set is 130, 137, 138, 143") {
  for (std::int32_t code : {130, 137, 138, 143}) {
    World w(make_pytorch({{"worker", 1}}, RestartPolicyType::ExitCode, 5));
    w.start();
    w.fail("job-worker-0", code);
    w.step();
    INFO("exit code " << code);
    CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  }
  for (std::int32_t code : {1, 2, 126, 127, 128, 139, 255}) {
    World w(make_pytorch({{"worker", 1}}, RestartPolicyType::ExitCode, 5));
    w.start();
    w.fail("job-worker-0", code);
    w.step();
    INFO("exit code " << code);
    CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);
    CHECK(w.phase() == JobPhase::Failed);
  }
}

TEST_CASE("§2.2 option Kubeflow: every exit code >= 128 is retryable") {
  for (std::int32_t code : {128, 139, 255}) {
    World w(make_pytorch({{"worker", 1}}, RestartPolicyType::ExitCode, 5));
    w.options.retryable_exit_codes = ControllerOptions::RetryableExitCodes::KubeflowAtLeast128;
    w.start();
    w.fail("job-worker-0", code);
    w.step();
    INFO("exit code " << code);
    CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  }
  World w(make_pytorch({{"worker", 1}}, RestartPolicyType::ExitCode, 5));
  w.options.retryable_exit_codes = ControllerOptions::RetryableExitCodes::KubeflowAtLeast128;
  w.start();
  w.fail("job-worker-0", 127);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§1.4 pitfall: ExitCode retryable exits consume the backoff budget") {
  World w(make_pytorch({{"worker", 1}}, RestartPolicyType::ExitCode, 1));
  w.start();
  fail_and_replace(w, "job-worker-0", 137);
  CHECK(w.backoff() == 1);
  w.fail("job-worker-0", 137);
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§1.4 pitfall kubeflow#2045 option: ExitCode retryable exits ignore backoffLimit") {
  World w(make_pytorch({{"worker", 1}}, RestartPolicyType::ExitCode, 1));
  w.options.exit_code_ignores_backoff_limit = true;
  w.start();
  for (int i = 0; i < 5; ++i) fail_and_replace(w, "job-worker-0", 143);
  CHECK(w.phase() == JobPhase::Running);
  CHECK(w.backoff() == 0);
  CHECK(w.task_restarts("worker") == 5);
  w.fail("job-worker-0", 1);  // a permanent code still fails
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§1.4 pitfall K8s 54870: backoffLimit caps restarts under OnFailure") {
  World w(make_pytorch({{"worker", 1}}, RestartPolicyType::OnFailure, 2));
  w.start();
  int restarts = 0;
  for (int i = 0; i < 5 && w.phase() != JobPhase::Failed; ++i) {
    w.fail("job-worker-0");
    w.step();
    restarts += count_reason(w.deletes(), DeletionReason::Restart);
    w.step();
    if (w.has("job-worker-0") && w.pod("job-worker-0").phase == PodPhase::Pending)
      w.run("job-worker-0");
    w.step();
  }
  CHECK(restarts == 2);
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE(
    "§1.4 pitfall K8s 92245: backoffLimit 6 allows exactly 6 restarts, the 7th failure fails") {
  World w(make_pytorch({{"worker", 1}}, RestartPolicyType::OnFailure, 6));
  w.start();
  for (int i = 0; i < 6; ++i) fail_and_replace(w, "job-worker-0");
  CHECK(w.phase() == JobPhase::Running);  // six failed pods so far: not yet failed
  CHECK(w.backoff() == 6);
  CHECK(w.pod("job-worker-0").generation == 6);
  w.fail("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§1.4 pitfall K8s 96630: an intervening success does not reset backoffCount") {
  World w(make_pytorch({{"master", 1}, {"worker", 2}}, RestartPolicyType::OnFailure, 3));
  w.start();
  fail_and_replace(w, "job-worker-0");
  w.succeed("job-worker-1");
  w.step();
  fail_and_replace(w, "job-worker-0");
  CHECK(w.backoff() == 2);
}

TEST_CASE("§1.4 pitfall K8s 111608: removing the failed pods does not reset the count") {
  World w(make_pytorch({{"worker", 2}}, RestartPolicyType::OnFailure, 2));
  w.start();
  fail_and_replace(w, "job-worker-0");
  fail_and_replace(w, "job-worker-1");
  w.pods.clear();  // the world garbage-collects everything
  w.step();
  CHECK(w.backoff() == 2);
  CHECK(w.creates().size() == 2);  // missing ranks recreated, not counted
  w.run_all();
  w.step();
  w.fail("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§11 Q5 restart back-off is off by default: immediate replacement") {
  World w(make_pytorch({{"worker", 1}}));
  w.start();
  w.fail("job-worker-0");
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  CHECK_FALSE(w.last.requeue_after.has_value());
}

TEST_CASE("§11 Q5 option: exponential restart back-off 10s, 20s, capped") {
  World w(make_pytorch({{"worker", 1}}, RestartPolicyType::OnFailure, 10));
  w.options.restart_backoff = true;
  w.options.restart_backoff_cap = seconds(15);
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(1));
  w.fail("job-worker-0");
  w.pod("job-worker-0").finish_time = t9k::kernel::at(seconds(100));
  w.step_at(seconds(100));
  CHECK(w.deletes().empty());
  REQUIRE(w.last.requeue_after.has_value());
  CHECK(*w.last.requeue_after == seconds(10));
  w.step_at(seconds(109));
  CHECK(w.deletes().empty());
  CHECK(*w.last.requeue_after == seconds(1));
  CHECK(w.backoff() == 0);
  w.step_at(seconds(110));
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  w.step_at(seconds(110));
  w.run("job-worker-0");
  w.fail("job-worker-0");
  w.pod("job-worker-0").finish_time = t9k::kernel::at(seconds(200));
  w.step_at(seconds(200));
  CHECK(*w.last.requeue_after == seconds(15));  // 20 s capped at 15 s
  w.step_at(seconds(215));
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  CHECK(w.backoff() == 2);
}

TEST_CASE("§11 Q12 maxDuration default: a permanent replica failure") {
  World w(make_pytorch({{"worker", 2}}, RestartPolicyType::OnFailure, 5));
  w.start();
  w.max_duration("job-worker-0");
  w.step();
  CHECK(w.deletes().empty());
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.cond(JobConditionType::Failed).message ==
        "PyTorchTrainingJob job has failed: job-worker-0 exceeded the queue's maxDuration");
}

TEST_CASE("§11 Q12 option recreate: the pod is recreated without counting a restart") {
  World w(make_pytorch({{"worker", 2}}, RestartPolicyType::OnFailure, 5));
  w.options.max_duration = ControllerOptions::MaxDurationHandling::Recreate;
  w.start();
  w.max_duration("job-worker-1");
  w.step();
  CHECK(w.deletes().size() == 1);
  w.step();
  CHECK(w.creates().size() == 1);
  CHECK(w.pod("job-worker-1").generation == 1);
  CHECK(w.backoff() == 0);
  CHECK(w.task_restarts("worker") == 0);
  CHECK(w.phase() == JobPhase::Running);
}

TEST_CASE("§4.2 torchrun maxRestarts are in-pod: a pod failure means they are spent") {
  auto job = make_pytorch({{"worker", 2}}, RestartPolicyType::OnFailure, 0);
  job.spec.torchrun_config = model::TorchrunConfig{};
  job.spec.torchrun_config->enabled = true;
  job.spec.torchrun_config->max_restarts = 10;
  World w(job);
  w.start();
  w.fail("job-worker-0", 1);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);  // torchrun's budget never stands in for backoffLimit
}

TEST_CASE("§4.2 the training container is the one named python") {
  auto job = make_pytorch({{"worker", 1}});
  model::Container sidecar;
  sidecar.name = "sidecar";
  sidecar.command = {"sleep", "inf"};
  auto& containers = job.spec.replica_specs[0].template_.edit().spec.containers;
  containers.insert(containers.begin(), sidecar);
  World w(job);
  w.step();
  CHECK(w.creates().at(0).command == std::vector<std::string>{"python", "train.py"});
  CHECK(w.creates().at(0).args == std::vector<std::string>{"--epochs", "3"});
}

TEST_CASE("§11 Q1 Pending until all pods run, and option MasterRunning") {
  World a(make_pytorch({{"master", 1}, {"worker", 2}}));
  a.step();
  a.run("job-master-0");
  a.run("job-worker-0");
  a.step();
  CHECK(a.phase() == JobPhase::Pending);
  World b(make_pytorch({{"master", 1}, {"worker", 2}}));
  b.options.running_when = ControllerOptions::RunningWhen::MasterRunning;
  b.step();
  b.run("job-master-0");
  b.step();
  CHECK(b.phase() == JobPhase::Running);
}

TEST_CASE("§4.3 §11 Q8 split_by_weight: largest remainder, ties to the earlier type") {
  using detail::split_by_weight;
  CHECK(split_by_weight(7, {1, 1}) == std::vector<std::int32_t>{4, 3});
  CHECK(split_by_weight(5, {1, 2, 2}) == std::vector<std::int32_t>{1, 2, 2});
  CHECK(split_by_weight(4, {1, 1, 1}) == std::vector<std::int32_t>{2, 1, 1});
  CHECK(split_by_weight(10, {1, 3}) == std::vector<std::int32_t>{3, 7});  // 2.5 / 7.5
  CHECK(split_by_weight(7, {2, 3}) == std::vector<std::int32_t>{3, 4});   // 2.8 / 4.2
  CHECK(split_by_weight(0, {1, 1}) == std::vector<std::int32_t>{0, 0});
  CHECK(split_by_weight(3, {0, 0}) == std::vector<std::int32_t>{2, 1});
}

TEST_CASE("§4.3 elastic target = clamp(expectedReplicas, min, max)") {
  {
    World w = elastic_world(2, 4, 3);
    w.step();
    CHECK(w.creates().size() == 3);
  }
  {
    World w = elastic_world(2, 4, 10);
    w.step();
    CHECK(w.creates().size() == 4);
  }
  {
    World w = elastic_world(2, 4, 1);
    w.step();
    CHECK(w.creates().size() == 2);
  }
}

TEST_CASE("§4.3 §11 Q8 elastic split across replica types by scalingWeight") {
  World w = elastic_world(1, 10, 8, {{"master", 1}, {"worker", 1}});
  w.pytorch().spec.replica_specs[1].scaling_weight = 3;
  w.step();
  CHECK(w.names() == std::vector<std::string>{"job-master-0", "job-master-1", "job-worker-0",
                                              "job-worker-1", "job-worker-2", "job-worker-3",
                                              "job-worker-4", "job-worker-5"});
}

TEST_CASE("§4.3 elastic: the master rank survives a split that would leave the first type empty") {
  World w = elastic_world(1, 10, 1, {{"master", 1}, {"worker", 1}});
  w.pytorch().spec.replica_specs[1].scaling_weight = 3;
  w.step();
  CHECK(w.names() == std::vector<std::string>{"job-master-0"});
}

TEST_CASE("§4.3 elastic needs torchrun mode: otherwise replicas are used") {
  auto job = make_pytorch({{"worker", 2}});
  job.spec.elastic = model::ElasticConfig{true, 4, 8, 6};
  World w(job);
  use_t9k_scheduler(w.job);
  w.step();
  CHECK(w.creates().size() == 2);
  CHECK(w.pod_group->spec.min_member == 2);
}

TEST_CASE("§4.3 §8.1 elastic PodGroup minMember = minReplicas") {
  World w = elastic_world(2, 6, 5, {{"master", 1}, {"worker", 1}});
  use_t9k_scheduler(w.job);
  w.step();
  REQUIRE(w.pod_group.has_value());
  CHECK(w.pod_group->spec.min_member == 2);
  REQUIRE(w.pod_group->spec.roles.size() == 2);
  CHECK(w.pod_group->spec.roles[0].min_member + w.pod_group->spec.roles[1].min_member == 2);
  CHECK(w.creates().size() == 5);
}

TEST_CASE("§4.3 elastic scale-up creates new ranks and restarts training on the survivors") {
  World w = elastic_world(1, 4, 2);
  use_t9k_scheduler(w.job);
  w.start();
  REQUIRE(w.phase() == JobPhase::Running);
  w.pytorch().spec.elastic->expected_replicas = 4;  // a live change
  w.step();
  const auto created = w.creates();
  REQUIRE(created.size() == 2);
  CHECK(created[0].metadata.name == "job-worker-2");
  CHECK(created[1].metadata.name == "job-worker-3");
  REQUIRE(w.trainings.size() == 1);
  CHECK(w.trainings[0].pods == std::vector<std::string>{"job-worker-0", "job-worker-1"});
  CHECK(w.trainings[0].reason == "ScaleUp");
  CHECK(w.trainings[0].replicas == 4);
  CHECK(w.backoff() == 0);  // not counted against backoffLimit
  CHECK(w.pod_group->spec.min_member == 1);
  w.step();
  CHECK(w.trainings.size() == 1);  // level-based: the change is acted on once
}

TEST_CASE("§4.3 elastic scale-down deletes the highest ranks") {
  World w = elastic_world(1, 4, 4);
  w.start();
  w.pytorch().spec.elastic->expected_replicas = 2;
  w.step();
  const auto ds = w.deletes();
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].name == "job-worker-2");
  CHECK(ds[1].name == "job-worker-3");
  CHECK(count_reason(ds, DeletionReason::ScaleDown) == 2);
  REQUIRE(w.trainings.size() == 1);
  CHECK(w.trainings[0].pods == std::vector<std::string>{"job-worker-0", "job-worker-1"});
  CHECK(w.trainings[0].reason == "ScaleDown");
  CHECK(w.status().aggregate.deleted == 2);
  w.settle();
  w.step();
  CHECK(w.status().aggregate.total() == 2);
  CHECK(w.backoff() == 0);
}

TEST_CASE("§11 Q1 elastic: Running once minReplicas pods run") {
  World w = elastic_world(2, 4, 4);
  w.step();
  w.run("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Pending);
  w.run("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
}

TEST_CASE("§4.3 elastic success: the master by default, any replica as an option (Kubeflow)") {
  World a = elastic_world(1, 4, 3);
  a.start();
  a.succeed("job-worker-2");
  a.step();
  CHECK(a.phase() == JobPhase::Running);
  World b = elastic_world(1, 4, 3);
  b.options.elastic_success = ControllerOptions::ElasticSuccess::AnyReplica;
  b.start();
  b.succeed("job-worker-2");
  b.step();
  CHECK(b.phase() == JobPhase::Succeeded);
}

TEST_CASE("§9 TensorBoard dependent created and its readiness reported") {
  auto job = make_pytorch({{"worker", 1}});
  job.spec.tensorboard_spec = model::TensorBoardSpec{"tb:latest", {"t9k://pvc/logs/log"}};
  World w(job);
  w.step();
  int tb = 0;
  for (const auto& a : w.last.actions) {
    if (const auto* c = std::get_if<CreateTensorBoard>(&a)) {
      ++tb;
      CHECK(c->name == "job");
      CHECK(c->spec.image == "tb:latest");
      CHECK(c->owner.kind == "PyTorchTrainingJob");
    }
  }
  CHECK(tb == 1);
  REQUIRE(w.status().tensorboard.has_value());
  CHECK_FALSE(w.status().tensorboard->ready);
  w.tensorboard->ready = true;
  w.step();
  const auto& d = *w.status().tensorboard;
  CHECK(d.ready);
  CHECK(d.reason == "DependentReady");
  CHECK(d.action == "NOP");
  CHECK(d.note == "TensorBoard [job] is ready");
  CHECK(d.dependent.kind == "TensorBoard");
  CHECK(d.dependent.uid == "tb-uid");
  CHECK(w.phase() == JobPhase::Pending);  // TensorBoard state never decides the phase
}

TEST_CASE("§1.3 PyTorch backoffCount starts at 0 and tasks report per type") {
  World w(make_pytorch({{"master", 1}, {"worker", 2}}));
  w.step();
  CHECK(w.backoff() == 0);
  REQUIRE(w.status().tasks.size() == 2);
  CHECK(w.status().tasks[0].type == "master");
  CHECK(w.status().tasks[1].replicas.size() == 2);
  CHECK(w.status().tasks[1].replicas[1].name == "job-worker-1");
}
