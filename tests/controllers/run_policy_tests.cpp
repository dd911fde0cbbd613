// runPolicy (§6: activeDeadlineSeconds, cleanUpPolicy) and runMode (§7: debug, pause/resume).
#include "support.hpp"

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;
using t9k::kernel::at;

namespace {

World deadline_world(std::int64_t seconds_,
                     model::CleanUpPolicy policy = model::CleanUpPolicy::None) {
  auto job = make_pytorch({{"master", 1}, {"worker", 2}});
  job.spec.run_policy.active_deadline_seconds = seconds_;
  job.spec.run_policy.clean_up_policy = policy;
  return World(job);
}

void set_pause(World& w, bool on) {
  std::visit([&](auto& j) { j.spec.run_mode.edit().pause.enabled = on; }, w.job);
}

}  // namespace

TEST_CASE("§11 Q6 the deadline clock starts at the first reconcile") {
  World w = deadline_world(100);
  w.step_at(seconds(20));
  CHECK(w.status().start_time == at(seconds(20)));
  CHECK(w.status().active_since == at(seconds(20)));
  REQUIRE(w.last.requeue_after.has_value());
  CHECK(*w.last.requeue_after == seconds(100));
  w.run_all();
  w.step_at(seconds(119));
  CHECK(w.phase() == JobPhase::Running);
  CHECK(*w.last.requeue_after == seconds(1));
  w.step_at(seconds(120));
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE(
    "§6.1 deadline exceeded: Failed with Kubeflow-like message, pods stopped (reason Deadline)") {
  World w = deadline_world(100);
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(1));
  w.step_at(seconds(100));
  CHECK(w.phase() == JobPhase::Failed);
  const auto* failed = w.condition(JobConditionType::Failed);
  REQUIRE(failed != nullptr);
  CHECK(failed->status == ConditionStatus::True);
  CHECK(failed->reason == "DeadlineExceeded");
  CHECK(failed->message ==
        "PyTorchTrainingJob job has failed because it was active longer than specified deadline");
  CHECK(w.cond(JobConditionType::Completed).reason == "Failed");
  CHECK(count_reason(w.deletes(), DeletionReason::Deadline) == 3);
  CHECK(w.creates().empty());
  CHECK_FALSE(w.last.requeue_after.has_value());
}

TEST_CASE("§11 Q6 the deadline fails a job that is still Pending") {
  World w = deadline_world(10);
  w.step_at(seconds(0));
  w.step_at(seconds(10));
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(count_reason(w.deletes(), DeletionReason::Deadline) == 3);
}

TEST_CASE("§11 Q6 paused time is excluded and the clock restarts on resume") {
  World w = deadline_world(100);
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(1));
  set_pause(w, true);
  w.step_at(seconds(50));
  CHECK(w.phase() == JobPhase::Paused);
  CHECK_FALSE(w.status().active_since.has_value());
  w.settle();
  w.step_at(seconds(500));
  CHECK(w.phase() == JobPhase::Paused);  // no deadline while paused
  set_pause(w, false);
  w.step_at(seconds(600));
  CHECK(w.phase() == JobPhase::Resuming);
  CHECK(w.status().active_since == at(seconds(600)));
  CHECK(*w.last.requeue_after == seconds(100));
  w.run_all();
  w.step_at(seconds(699));
  CHECK(w.phase() == JobPhase::Running);
  w.step_at(seconds(700));
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§6.1 §11 Q6 deadline with cleanUpPolicy None: live pods stopped, finished pods kept") {
  World w = deadline_world(100, model::CleanUpPolicy::None);
  w.step_at(seconds(0));
  w.run_all();
  w.succeed("job-worker-1");
  w.step_at(seconds(1));
  w.step_at(seconds(100));
  const auto ds = w.deletes();
  CHECK(ds.size() == 2);
  CHECK(count_reason(ds, DeletionReason::Deadline) == 2);
  CHECK(w.has("job-worker-1"));
}

TEST_CASE("§6.1 §6.2 deadline with cleanUpPolicy All: finished pods deleted too (Cleanup)") {
  World w = deadline_world(100, model::CleanUpPolicy::All);
  w.step_at(seconds(0));
  w.run_all();
  w.succeed("job-worker-1");
  w.step_at(seconds(1));
  w.step_at(seconds(100));
  CHECK(count_reason(w.deletes(), DeletionReason::Deadline) == 2);
  CHECK(count_reason(w.deletes(), DeletionReason::Cleanup) == 1);
  CHECK_FALSE(w.has("job-worker-1"));
}

TEST_CASE("§6.2 cleanUpPolicy None (default, §11 Q16): nothing deleted at the end") {
  World w(make_pytorch({{"master", 1}, {"worker", 1}}));
  CHECK(w.pytorch().spec.run_policy.clean_up_policy == model::CleanUpPolicy::None);
  w.start();
  w.succeed("job-master-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  CHECK(w.deletes().empty());
}

TEST_CASE("§6.2 cleanUpPolicy Unfinished: only Pending, Running and Unknown pods are deleted") {
  auto job = make_pytorch({{"master", 1}, {"worker", 3}}, RestartPolicyType::Never);
  job.spec.run_policy.clean_up_policy = model::CleanUpPolicy::Unfinished;
  World w(job);
  w.step();
  w.run("job-master-0");
  w.run("job-worker-0");
  w.unknown("job-worker-1");  // worker-2 stays Pending
  w.step();
  w.succeed("job-master-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  const auto ds = w.deletes();
  CHECK(ds.size() == 3);
  CHECK(count_reason(ds, DeletionReason::Cleanup) == 3);
  CHECK(w.has("job-master-0"));
}

TEST_CASE("§6.2 cleanUpPolicy All: every pod is deleted at the end, once") {
  auto job = make_pytorch({{"master", 1}, {"worker", 2}});
  job.spec.run_policy.clean_up_policy = model::CleanUpPolicy::All;
  World w(job);
  w.start();
  w.succeed("job-master-0");
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Cleanup) == 3);
  w.step();  // level-based: pods already terminating are not deleted again
  CHECK(w.deletes().empty());
  w.settle();
  w.step();
  CHECK(w.status().aggregate.total() == 3);
  CHECK(w.status().aggregate.deleted == 3);
}

TEST_CASE("§1.1 terminal phases never change") {
  World w(make_pytorch({{"master", 1}, {"worker", 1}}));
  w.start();
  w.succeed("job-master-0");
  w.step();
  REQUIRE(w.phase() == JobPhase::Succeeded);
  const auto conditions = w.status().conditions;
  w.fail("job-worker-0", 1);
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  CHECK(w.creates().empty());
  CHECK(w.deletes().empty());
  set_pause(w, true);
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  CHECK(w.status().conditions == conditions);
}

TEST_CASE("§7.2 pause: graceful deletion of all pods, phase and condition Paused") {
  World w(make_generic({{"worker", 2}}));
  use_t9k_scheduler(w.job);
  w.start();
  REQUIRE(w.phase() == JobPhase::Running);
  set_pause(w, true);
  w.step();
  CHECK(w.phase() == JobPhase::Paused);
  CHECK(count_reason(w.deletes(), DeletionReason::Pause) == 2);
  const auto* paused = w.condition(JobConditionType::Paused);
  REQUIRE(paused != nullptr);
  CHECK(paused->status == ConditionStatus::True);
  CHECK(w.cond(JobConditionType::Running).status == ConditionStatus::False);
  CHECK(w.pod("job-worker-0").deletion_timestamp.has_value());  // graceful: still terminating
  w.settle();
  w.step();
  CHECK(w.creates().empty());
  CHECK(w.status().aggregate.deleted == 2);
  CHECK(w.status().aggregate.total() == 2);
}

TEST_CASE("§7.2 created with pause enabled: no pods, phase Paused") {
  auto job = make_generic({{"worker", 2}});
  job.spec.run_mode.edit().pause.enabled = true;
  World w(job);
  w.step();
  CHECK(w.phase() == JobPhase::Paused);
  CHECK(w.pods.empty());
  CHECK(w.status().aggregate.deleted == 2);
}

TEST_CASE("§7.2 resume: Resuming until all pods are back and running, then Running") {
  World w(make_generic({{"worker", 2}}));
  w.start();
  set_pause(w, true);
  w.step();
  set_pause(w, false);
  w.step();  // old pods still terminating: nothing to create yet
  CHECK(w.phase() == JobPhase::Resuming);
  CHECK(w.creates().empty());
  CHECK(w.cond(JobConditionType::Paused).status == ConditionStatus::False);
  w.settle();
  w.step();
  CHECK(w.creates().size() == 2);
  w.run("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Resuming);
  w.run("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  CHECK(w.cond(JobConditionType::Running).status == ConditionStatus::True);
}

TEST_CASE("§7.2 resumeSpecs apply to the pods created on resume") {
  auto job = make_generic({{"worker", 1}, {"ps", 1}});
  job.spec.run_mode.edit().pause.resume_specs = {
      {"worker", false, {"python", "resume.py"}, {"--from-checkpoint"}}};
  World w(job);
  w.start();
  CHECK(w.pod("job-worker-0").command == std::vector<std::string>{"python", "train.py"});
  set_pause(w, true);
  w.step();
  w.settle();
  set_pause(w, false);
  w.step();
  CHECK(w.pod("job-worker-0").command == std::vector<std::string>{"python", "resume.py"});
  CHECK(w.pod("job-worker-0").args == std::vector<std::string>{"--from-checkpoint"});
  CHECK(w.pod("job-ps-0").command ==
        std::vector<std::string>{"python", "train.py"});  // template default
}

TEST_CASE("§11 Q20 the PodGroup keeps its creation time across pause and resume") {
  World w(make_pytorch({{"worker", 2}}));
  use_t9k_scheduler(w.job);
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(1));
  set_pause(w, true);
  w.step_at(seconds(10));
  w.settle();
  set_pause(w, false);
  w.step_at(seconds(20));
  CHECK(w.pod_group_creates == 1);
  CHECK(w.pod_group->metadata.creation_timestamp == at(seconds(0)));
  CHECK(w.creates().size() == 2);
}

TEST_CASE("§11 Q4 pause deletions are not restarts and backoffCount survives resume") {
  World w(make_pytorch({{"worker", 2}}, RestartPolicyType::OnFailure, 3));
  w.start();
  w.fail("job-worker-1");
  w.step();
  w.step();
  w.run_all();
  w.step();
  REQUIRE(w.backoff() == 1);
  set_pause(w, true);
  w.step();
  w.settle();
  set_pause(w, false);
  w.step();
  w.run_all();
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  CHECK(w.backoff() == 1);
  CHECK(w.task_restarts("worker") == 1);
}

TEST_CASE("§11 Q19 a debug job stays Running, and its deadline still applies") {
  auto job = make_pytorch({{"worker", 1}});
  job.spec.run_mode.edit().debug.enabled = true;
  job.spec.run_policy.active_deadline_seconds = 50;
  World w(job);
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(1));
  CHECK(w.phase() == JobPhase::Running);
  w.succeed("job-worker-0");  // not the training: rules are not evaluated
  w.step_at(seconds(2));
  CHECK(w.phase() == JobPhase::Running);
  w.step_at(seconds(50));
  CHECK(w.phase() == JobPhase::Failed);
}
