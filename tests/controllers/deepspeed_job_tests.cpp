// DeepSpeedJob (§5): worker-0 is the launcher and decides the job; slotsPerWorker; elastic.
#include "support.hpp"

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;

TEST_CASE("§5 DeepSpeedJob: pods are workers, worker-0 success => Succeeded") {
  World w(make_deepspeed(3));
  w.step();
  CHECK(w.names() == std::vector<std::string>{"job-worker-0", "job-worker-1", "job-worker-2"});
  w.run_all();
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.succeed("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
}

TEST_CASE("§5 §1.2 worker-0 failing for good => Failed with the UC message") {
  World w(make_deepspeed(2, RestartPolicyType::OnFailure, 0));
  w.start();
  w.fail("job-worker-0", 137);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  const auto* failed = w.condition(JobConditionType::Failed);
  REQUIRE(failed != nullptr);
  CHECK(failed->message == "DeepSpeedJob job has failed: job-worker-0 failed with exit code 137");
  CHECK(w.cond(JobConditionType::Completed).status == ConditionStatus::True);
  CHECK(w.cond(JobConditionType::ReplicaFailure).message ==
        "Pod[job-worker-0] exited with error code 137");
}

TEST_CASE("§5 default restart policy OnFailure restarts worker-0 within backoffLimit") {
  model::DeepSpeedJob job = make_deepspeed(2);
  job.spec.worker = model::DeepSpeedWorker{};
  job.spec.worker.replicas = 2;
  job.spec.worker.template_ = make_template(2, "worker");
  CHECK(job.spec.worker.restart_policy == RestartPolicyType::OnFailure);
  World w(job);
  w.start();
  w.fail("job-worker-0", 1);
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  CHECK(w.backoff() == 1);
  CHECK(w.phase() == JobPhase::Running);
}

TEST_CASE("§11 Q7 DeepSpeed: a non-launcher worker failing for good fails the job by default") {
  World a(make_deepspeed(3, RestartPolicyType::Never));
  a.start();
  a.fail("job-worker-2", 1);
  a.step();
  CHECK(a.phase() == JobPhase::Failed);
  World b(make_deepspeed(3, RestartPolicyType::Never));
  b.options.permanent_failure_scope = ControllerOptions::PermanentFailureScope::MasterOnly;
  b.start();
  b.fail("job-worker-2", 1);
  b.step();
  CHECK(b.phase() == JobPhase::Running);
}

TEST_CASE("§5 slotsPerWorker: explicit, or the worker's GPUs by default") {
  World a(make_deepspeed(1));
  a.step();
  CHECK(a.creates().at(0).metadata.annotations->at("t9ksim.io/slots-per-worker") == "2");
  auto job = make_deepspeed(1);
  job.spec.config->slots_per_worker = 4;
  World b(job);
  b.step();
  CHECK(b.creates().at(0).metadata.annotations->at("t9ksim.io/slots-per-worker") == "4");
}

TEST_CASE("§5 the training container is the one named worker") {
  auto job = make_deepspeed(1);
  model::Container side;
  side.name = "a-sidecar";
  side.command = {"sidecar"};
  auto& cs = job.spec.worker.template_.edit().spec.containers;
  cs.insert(cs.begin(), side);
  World w(job);
  w.step();
  CHECK(w.creates().at(0).command == std::vector<std::string>{"python", "train.py"});
  CHECK(model::pod_labels(w.creates().at(0)).at(model::kLabelComponent) == "deepspeedjob");
}

TEST_CASE("§5 §11 Q8 DeepSpeed elastic: every scale event restarts training on all workers") {
  auto job = make_deepspeed(1);
  job.spec.elastic = model::ElasticConfig{true, 1, 3, 2};
  job.spec.config->slots_per_worker = 2;
  World w(job);
  w.start();
  CHECK(w.names().size() == 2);
  w.deepspeed().spec.elastic->expected_replicas = 3;
  w.step();
  REQUIRE(w.trainings.size() == 1);
  CHECK(w.trainings[0].pods == std::vector<std::string>{"job-worker-0", "job-worker-1"});
  CHECK(w.trainings[0].replicas == 3);
  CHECK(w.trainings[0].world_size == 6);
  CHECK(w.creates().size() == 1);
  w.run_all();
  w.step();
  w.deepspeed().spec.elastic->expected_replicas = 1;
  w.step();
  REQUIRE(w.trainings.size() == 2);
  CHECK(w.trainings[1].pods == std::vector<std::string>{"job-worker-0"});
  CHECK(w.trainings[1].world_size == 2);
  CHECK(count_reason(w.deletes(), DeletionReason::ScaleDown) == 2);
  CHECK(w.backoff() == 0);
}

TEST_CASE("§5 §8.1 DeepSpeed elastic PodGroup minMember = minReplicas") {
  auto job = make_deepspeed(1);
  job.spec.elastic = model::ElasticConfig{true, 2, 5, 4};
  World w(job);
  use_t9k_scheduler(w.job);
  w.step();
  CHECK(w.pod_group->spec.min_member == 2);
  CHECK(w.creates().size() == 4);
}

TEST_CASE("§5 §7.1 DeepSpeed debug command is sshd -D") {
  auto job = make_deepspeed(2);
  job.spec.run_mode.edit().debug.enabled = true;
  World w(job);
  w.step();
  CHECK(w.creates().at(0).command == std::vector<std::string>{"/usr/sbin/sshd", "-D"});
  CHECK(w.creates().at(1).debug);
}

TEST_CASE("§1.1 CONFLICT DeepSpeed gets Paused and Resuming like the other kinds") {
  World w(make_deepspeed(2));
  w.start();
  w.deepspeed().spec.run_mode.edit().pause.enabled = true;
  w.step();
  CHECK(w.phase() == JobPhase::Paused);
  w.settle();
  w.deepspeed().spec.run_mode.edit().pause.enabled = false;
  w.step();
  CHECK(w.phase() == JobPhase::Resuming);
  w.run_all();
  w.step();
  CHECK(w.phase() == JobPhase::Running);
}

TEST_CASE("§6.1 DeepSpeed activeDeadlineSeconds fails the job") {
  auto job = make_deepspeed(1);
  job.spec.run_policy.active_deadline_seconds = 30;
  World w(job);
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(29));
  CHECK(w.phase() == JobPhase::Running);
  w.step_at(seconds(30));
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.cond(JobConditionType::Failed).message ==
        "DeepSpeedJob job has failed because it was active longer than specified deadline");
}
