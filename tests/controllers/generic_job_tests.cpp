// GenericJob (§3), its restart policy (§2, §11 Q3) and status (§1.2, §1.3).
#include "support.hpp"

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;

namespace {

model::FinishRule rule(std::map<std::string, std::vector<std::int32_t>> r) {
  return model::FinishRule{std::move(r)};
}

// Fail a running pod, let the controller replace it, and run the replacement.
void fail_and_replace(World& w, const std::string& name, std::int32_t code = 1) {
  w.fail(name, code);
  w.step();  // deletes the failed pod (reason Restart)
  w.step();  // recreates the rank
  w.run(name);
  w.step();
}

}  // namespace

TEST_CASE("§3 GenericJob: created pods are Pending, all running is Running (§11 Q1)") {
  World w(make_generic({{"worker", 2}}));
  w.step();
  CHECK(w.phase() == JobPhase::Pending);
  CHECK(w.names() == std::vector<std::string>{"job-worker-0", "job-worker-1"});
  w.run("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Pending);
  w.run("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  REQUIRE(w.condition(JobConditionType::Running) != nullptr);
  CHECK(w.cond(JobConditionType::Running).status == ConditionStatus::True);
  CHECK(w.cond(JobConditionType::Running).message == "All pods are running normally.");
}

TEST_CASE("§11 Q2 default success rule: all replicas succeeded") {
  World w(make_generic({{"master", 1}, {"worker", 2}}));
  w.start();
  w.succeed("job-master-0");
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Running);  // not before the last replica succeeds
  w.succeed("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
}

TEST_CASE("§11 Q2 default failure rule: any replica failing terminally fails the job") {
  World w(make_generic({{"worker", 3}}));
  w.start();
  w.fail("job-worker-1", 2);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  REQUIRE(w.condition(JobConditionType::Failed) != nullptr);
  CHECK(w.cond(JobConditionType::Failed).message ==
        R"(The job is failed with rule: {"worker":["1"]})");
}

TEST_CASE("§3.1 success rules: any one fulfilled rule suffices") {
  auto job = make_generic({{"master", 3}, {"worker", 3}});
  job.spec.success_rules = {rule({{"master", {0}}}), rule({{"worker", {0, 1, 2}}}),
                            rule({{"master", {2}}, {"worker", {0, 1}}})};
  World w(job);
  w.start();
  w.succeed("job-master-2");
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.succeed("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);  // the third rule
}

TEST_CASE("§3.1 a success rule needs all the replicas it names") {
  auto job = make_generic({{"worker", 3}});
  job.spec.success_rules = {rule({{"worker", {0, 1, 2}}})};
  World w(job);
  w.start();
  w.succeed("job-worker-0");
  w.succeed("job-worker-2");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.succeed("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
}

TEST_CASE("§3.1 failure rule fulfilled: Failed with the rule text (§1.2 UC snapshot)") {
  auto job = make_generic({{"worker", 4}}, RestartPolicyType::Never);
  job.spec.success_rules = {rule({{"worker", {0}}})};
  job.spec.failure_rules = {rule({{"worker", {0}}}), rule({{"worker", {1}}})};
  World w(job);
  w.start();
  w.fail("job-worker-0", 127);
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  const std::string msg = R"(The job is failed with rule: {"worker":["0"]})";
  const auto* running = w.condition(JobConditionType::Running);
  const auto* failed = w.condition(JobConditionType::Failed);
  const auto* completed = w.condition(JobConditionType::Completed);
  const auto* rf = w.condition(JobConditionType::ReplicaFailure);
  REQUIRE((running && failed && completed && rf));
  CHECK(running->status == ConditionStatus::False);
  CHECK(running->reason == "Failed");
  CHECK(running->message == msg);
  CHECK(failed->status == ConditionStatus::True);
  CHECK(failed->reason == "Failed");
  CHECK(completed->status ==
        ConditionStatus::True);  // newest manual: Completed on any terminal phase
  CHECK(completed->reason == "Failed");
  CHECK(rf->status == ConditionStatus::True);
  CHECK(rf->reason == "ErrorInPod");
  CHECK(rf->message == "Pod[job-worker-0] exited with error code 127");
  CHECK(w.cond(JobConditionType::Initialized).status == ConditionStatus::True);
}

TEST_CASE("§3.1 a failure rule needs all the replicas it names") {
  auto job = make_generic({{"worker", 3}}, RestartPolicyType::Never);
  job.spec.success_rules = {rule({{"worker", {0}}})};
  job.spec.failure_rules = {rule({{"worker", {1, 2}}})};
  World w(job);
  w.start();
  w.fail("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.fail("job-worker-2");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.cond(JobConditionType::Failed).message ==
        R"(The job is failed with rule: {"worker":["1","2"]})");
}

TEST_CASE("§3.1 §11 Q2 failure is evaluated before success in the same step") {
  auto job = make_generic({{"worker", 2}}, RestartPolicyType::Never);
  job.spec.success_rules = {rule({{"worker", {0}}})};
  job.spec.failure_rules = {rule({{"worker", {1}}})};
  World w(job);
  w.start();
  w.succeed("job-worker-0");
  w.fail("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§3.1 UC-1500: restarts exhausted and no success rule reachable fails the job") {
  auto job = make_generic({{"worker", 2}}, RestartPolicyType::OnFailure, 1);
  job.spec.success_rules = {rule({{"worker", {1}}})};
  job.spec.failure_rules = {rule({{"worker", {0}}})};
  World w(job);
  w.start();
  fail_and_replace(w, "job-worker-1");  // the one allowed restart
  CHECK(w.phase() == JobPhase::Running);
  w.fail("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
  CHECK(w.cond(JobConditionType::Failed).message.view().find("no success rule can be fulfilled") !=
        std::string_view::npos);
}

TEST_CASE("§3.1 UC-1500: a still reachable success rule keeps the job running") {
  auto job = make_generic({{"worker", 2}}, RestartPolicyType::Never);
  job.spec.success_rules = {rule({{"worker", {0}}})};
  job.spec.failure_rules = {rule({{"worker", {0}}})};
  World w(job);
  w.start();
  w.fail("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
}

TEST_CASE("§3.1 a replica that will be restarted is not failed for the rules") {
  auto job = make_generic({{"worker", 2}}, RestartPolicyType::OnFailure, 3);
  job.spec.failure_rules = {rule({{"worker", {0}}})};
  World w(job);
  w.start();
  w.fail("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
}

TEST_CASE("§3.1 a rule naming a replica that does not exist is never fulfilled") {
  auto job = make_generic({{"worker", 2}}, RestartPolicyType::Never);
  job.spec.success_rules = {rule({{"worker", {0}}})};
  job.spec.failure_rules = {rule({{"worker", {1}}, {"master", {0}}})};
  World w(job);
  w.start();
  w.fail("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Running);
}

TEST_CASE("§2.3 §11 Q3 GenericJob limit is per replica (rank)") {
  World w(make_generic({{"worker", 2}}, RestartPolicyType::OnFailure, 2));
  w.start();
  fail_and_replace(w, "job-worker-0");
  fail_and_replace(w, "job-worker-0");
  CHECK(w.phase() == JobPhase::Running);
  fail_and_replace(w, "job-worker-1");  // worker-1 has its own budget
  CHECK(w.phase() == JobPhase::Running);
  CHECK(w.task_restarts("worker") == 3);  // §1.3: summed over the type
  CHECK(w.status().tasks[0].replicas[0].restart_count == 2);
  CHECK(w.status().tasks[0].replicas[1].restart_count == 1);
  CHECK(w.pod("job-worker-0").generation == 2);
  w.fail("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);  // worker-0's budget is spent
}

TEST_CASE("§11 Q3 option: GenericJob limit per replica type") {
  World w(make_generic({{"worker", 2}}, RestartPolicyType::OnFailure, 2));
  w.options.generic_limit_scope = ControllerOptions::GenericLimitScope::PerType;
  w.start();
  fail_and_replace(w, "job-worker-0");
  fail_and_replace(w, "job-worker-1");
  CHECK(w.phase() == JobPhase::Running);
  w.fail("job-worker-1");
  w.step();
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§2.3 GenericJob default limit 0: a replica is never restarted") {
  World w(make_generic({{"worker", 1}}));
  CHECK(w.generic().spec.replica_specs[0].restart_policy.limit == 0);
  w.start();
  w.fail("job-worker-0");
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§2.2 Never: a failed replica is not restarted even with a limit") {
  World w(make_generic({{"worker", 1}}, RestartPolicyType::Never, 5));
  w.start();
  w.fail("job-worker-0");
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 0);
  CHECK(w.phase() == JobPhase::Failed);
}

TEST_CASE("§2.2 Always: a replica that exits 0 is restarted while the limit allows") {
  World w(make_generic({{"worker", 1}}, RestartPolicyType::Always, 1));
  w.start();
  w.succeed("job-worker-0");
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  CHECK(w.phase() == JobPhase::Running);
  w.step();
  w.run("job-worker-0");
  w.step();
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  CHECK(w.task_restarts("worker") == 1);
}

TEST_CASE("§2.2 OnFailure: a replica that exits 0 is not restarted") {
  World w(make_generic({{"worker", 2}}, RestartPolicyType::OnFailure, 3));
  w.start();
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.deletes().empty());
  CHECK(w.has("job-worker-0"));
}

TEST_CASE("§1.3 GenericJob has no backoffCount") {
  World w(make_generic({{"worker", 1}}, RestartPolicyType::OnFailure, 2));
  w.start();
  fail_and_replace(w, "job-worker-0");
  CHECK_FALSE(w.status().backoff_count.has_value());
  CHECK(w.task_restarts("worker") == 1);
}

TEST_CASE("§1.2 successful job condition snapshot") {
  World w(make_generic({{"worker", 1}}));
  w.start();
  w.succeed("job-worker-0");
  w.step();
  REQUIRE(w.phase() == JobPhase::Succeeded);
  const auto* running = w.condition(JobConditionType::Running);
  const auto* failed = w.condition(JobConditionType::Failed);
  const auto* completed = w.condition(JobConditionType::Completed);
  const auto* rf = w.condition(JobConditionType::ReplicaFailure);
  REQUIRE((running && failed && completed && rf));
  CHECK(running->status == ConditionStatus::False);
  CHECK(running->reason == "Succeeded");
  CHECK(running->message == "The job has finished successfully.");
  CHECK(completed->status == ConditionStatus::True);
  CHECK(completed->reason == "Succeeded");
  CHECK(failed->status == ConditionStatus::False);
  CHECK(failed->reason == "Succeeded");
  CHECK(rf->status == ConditionStatus::False);
  CHECK(rf->message == "All pods are running normally.");
  CHECK(w.status().completion_time == w.now);
  // conditions are kept in the API's order
  for (std::size_t i = 1; i < w.status().conditions.size(); ++i) {
    CHECK(w.status().conditions[i - 1].type < w.status().conditions[i].type);
  }
}

TEST_CASE("§1.2 ReplicaFailure stays True after a successful restart, transition time kept") {
  World w(make_generic({{"worker", 1}}, RestartPolicyType::OnFailure, 2));
  w.step_at(seconds(0));
  w.run_all();
  w.step_at(seconds(1));
  w.fail("job-worker-0", 3);
  w.step_at(seconds(10));
  w.step_at(seconds(11));
  w.run("job-worker-0");
  w.step_at(seconds(12));
  const auto* rf = w.condition(JobConditionType::ReplicaFailure);
  REQUIRE(rf != nullptr);
  CHECK(rf->status == ConditionStatus::True);
  CHECK(rf->message == "Pod[job-worker-0] exited with error code 3");
  CHECK(rf->last_transition_time == t9k::kernel::at(seconds(10)));
}

TEST_CASE("§6.2 GenericJob top-level cleanUpPolicy Unfinished") {
  auto job = make_generic({{"worker", 2}});
  job.spec.success_rules = {rule({{"worker", {0}}})};
  job.spec.clean_up_policy = model::CleanUpPolicy::Unfinished;
  World w(job);
  w.start();
  w.succeed("job-worker-0");
  w.step();
  CHECK(w.phase() == JobPhase::Succeeded);
  const auto ds = w.deletes();
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].name == "job-worker-1");
  CHECK(ds[0].reason == DeletionReason::Cleanup);
}

TEST_CASE("§11 Q4 a preempted pod is recreated without counting a restart") {
  World w(make_generic({{"worker", 2}}, RestartPolicyType::OnFailure, 1));
  w.start();
  w.evict("job-worker-1");
  w.step();
  CHECK(w.creates().empty());  // the name is still taken
  CHECK(w.status().aggregate.deleted == 1);
  w.settle();
  w.step();
  REQUIRE(w.creates().size() == 1);
  CHECK(w.pod("job-worker-1").generation == 1);
  CHECK(w.task_restarts("worker") == 0);
  CHECK(w.phase() == JobPhase::Running);  // Running is not left for Pending (§1.1)
}

TEST_CASE("§11 Q13 §9 node failure: Unknown, then Failed 137 counts as a failure") {
  World w(make_generic({{"worker", 1}}, RestartPolicyType::OnFailure, 1));
  w.start();
  w.unknown("job-worker-0");
  w.step();
  CHECK(w.status().aggregate.unknown == 1);
  CHECK(w.deletes().empty());
  w.fail("job-worker-0", 137);
  w.step();
  CHECK(count_reason(w.deletes(), DeletionReason::Restart) == 1);
  CHECK(w.task_restarts("worker") == 1);
}

TEST_CASE("§1.3 aggregate: creating, pending, running, succeeded, unknown, deleted") {
  World w(make_generic({{"worker", 6}}, RestartPolicyType::Never));
  w.step();
  CHECK(w.status().aggregate.creating == 6);  // requested, unbound
  w.bind("job-worker-1");
  w.run("job-worker-2");
  w.unknown("job-worker-3");
  w.run("job-worker-4");
  w.succeed("job-worker-4");
  w.run("job-worker-5");
  w.evict("job-worker-5");
  w.step();
  const auto& a = w.status().aggregate;
  CHECK(a.creating == 1);
  CHECK(a.pending == 1);
  CHECK(a.running == 1);
  CHECK(a.unknown == 1);
  CHECK(a.succeeded == 1);
  CHECK(a.deleted == 1);
  CHECK(a.failed == 0);
  CHECK(a.total() == 6);
  CHECK(w.status().tasks[0].replicas[1].phase == model::ReplicaPhase::Pending);
  CHECK(w.status().tasks[0].replicas[4].containers.at(0).exit_code == 0);
}

TEST_CASE("§7.1 debug mode: debug command, and replica failures do not fail the job (§11 Q19)") {
  auto job = make_generic({{"worker", 1}}, RestartPolicyType::Never);
  job.spec.run_mode.edit().debug.enabled = true;
  World w(job);
  w.step();
  const auto p = w.creates().at(0);
  CHECK(p.debug);
  CHECK(p.command == std::vector<std::string>{"sleep", "inf"});
  CHECK(p.args.empty());
  w.run_all();
  w.step();
  CHECK(w.phase() == JobPhase::Running);
  w.fail("job-worker-0", 1);
  w.step();
  CHECK(w.phase() == JobPhase::Running);
}

TEST_CASE("§7.1 debug replicaSpecs: command and skipInitContainer per type") {
  auto job = make_generic({{"worker", 1}, {"ps", 1}});
  model::Container init;
  init.name = "init";
  init.resources.requests[model::kResourceCpu] = model::Quantity::from_units(8);
  for (auto& r : job.spec.replica_specs) r.template_.edit().spec.init_containers.push_back(init);
  job.spec.run_mode.edit().debug.enabled = true;
  job.spec.run_mode.edit().debug.replica_specs = {{"worker", true, {"bash", "-c", "sleep 1d"}}};
  World w(job);
  w.step();
  const auto worker = w.pod("job-worker-0");
  const auto ps = w.pod("job-ps-0");
  CHECK(worker.command == std::vector<std::string>{"bash", "-c", "sleep 1d"});
  CHECK(model::get_resource(*worker.requests, model::kResourceCpu) ==
        model::Quantity::from_units(2));
  CHECK(ps.command == std::vector<std::string>{"sleep", "inf"});
  CHECK(model::get_resource(*ps.requests, model::kResourceCpu) == model::Quantity::from_units(8));
}
