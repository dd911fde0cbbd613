// The expect block checked against a run's change feed and outcomes (expect/checker.hpp,
// docs/regression-testing.md): a met block gives no message; each kind of mismatch gives one
// message naming its expect path, what was expected and what was observed.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "expect/checker.hpp"
#include "scenarios/format/load.hpp"

namespace {

using namespace t9k;
using kernel::seconds;
using kernel::SimTime;

// One GenericJob "a" with one worker, and the expect block under test.
scenarios::Scenario scenario_with(const std::string& expect) {
  const std::string text = R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: checker}
spec:
  horizon: 1h
  cluster: {nodePools: [{name: n, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]}
  workload:
    jobs:
      - behaviour: {runTime: 10m}
        manifest:
          apiVersion: batch.tensorstack.dev/v1beta1
          kind: GenericJob
          metadata: {name: a}
          spec:
            replicaSpecs:
              - type: worker
                replicas: 1
                template: {spec: {containers: [{name: c, image: i}]}}
  expect:
)" + expect;
  auto r = scenarios::parse_scenario(text, "checker.yaml");
  for (const auto& d : r.diagnostics) INFO(scenarios::format_diagnostic(d));
  REQUIRE(r.ok());
  return *r.scenario;
}

model::TimedChange at(std::int64_t s, model::Change c) {
  return {SimTime{seconds(s)}, std::move(c)};
}

// Job "a" submitted at 0, its worker created, bound and running at 10 s, succeeding at 610 s
// after one restart (a second pod).
void feed(expect::ExpectationChecker& ck) {
  ck.on_change(at(0, model::JobSubmitted{0, "default/a", model::JobKind::GenericJob, "", 0, 1, 0}));
  ck.on_change(at(1, model::PodCreated{0, "default/a-worker-0", "worker", 0, 0}));
  ck.on_change(at(2, model::PodBound{0, "default/a-worker-0", "n-0", 0, ""}));
  ck.on_change(at(10, model::PodRunning{0, "default/a-worker-0"}));
  ck.on_change(at(10, model::JobPhaseChanged{0, model::JobPhase::Running, {}, {}, 0, 0}));
  ck.on_change(at(300, model::PodReleased{0, "default/a-worker-0", "n-0", 0, "",
                                          model::PodPhase::Failed, 1, std::nullopt}));
  ck.on_change(at(301, model::PodCreated{0, "default/a-worker-0", "worker", 0, 0}));
  ck.on_change(at(310, model::PodRunning{0, "default/a-worker-0"}));
  ck.on_change(at(610, model::PodReleased{0, "default/a-worker-0", "n-0", 0, "",
                                          model::PodPhase::Succeeded, 0, std::nullopt}));
  ck.on_change(at(610, model::JobPhaseChanged{0, model::JobPhase::Succeeded, {}, {}, 1, 0}));
}

std::vector<sim::JobOutcome> outcomes() {
  sim::JobOutcome o;
  o.name = "default/a";
  o.kind = model::JobKind::GenericJob;
  o.phase = model::JobPhase::Succeeded;
  o.reason = "Succeeded";
  o.restarts = 1;
  return {o};
}

std::vector<std::string> check(const std::string& expect,
                               const std::map<std::string, double>& metrics = {}) {
  const auto sc = scenario_with(expect);
  expect::ExpectationChecker ck(*sc.expect, sc.default_namespace);
  feed(ck);
  return ck.check(outcomes(), metrics);
}

bool has(const std::vector<std::string>& diff, const std::string& text) {
  for (const auto& d : diff)
    if (d.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("expect: a block the run meets gives no message") {
  const auto diff = check(R"(    jobs:
      - name: a
        phase: Succeeded
        reason: Succeeded
        restartCount: 1
        phaseAt: {Running: {min: 5s, max: 20s}, Succeeded: {max: 1h}}
        pods:
          - {replicaType: worker, rank: 0, pods: 2}
          - {replicaType: worker, rank: 0, generation: 0, phase: Failed, exitCode: 1}
          - {replicaType: worker, rank: 0, generation: 1, phase: Succeeded}
    metrics:
      - {name: jobs_succeeded, min: 1, max: 1}
    events:
      - {type: PodRunning, job: a}
      - {type: PodReleased, job: a, phase: Failed, exitCode: 1}
      - {type: JobPhaseChanged, job: a, phase: Succeeded, at: {min: 10m}}
)",
                          {{"jobs_succeeded", 1}});
  for (const auto& d : diff) INFO(d);
  CHECK(diff.empty());
}

TEST_CASE("expect: each mismatch names its path, the expected and the observed value") {
  const auto diff = check(R"(    jobs:
      - name: a
        phase: Failed
        restartCount: {min: 2}
        phaseAt: {Paused: {max: 1h}, Running: {max: 5s}}
        pods:
          - {replicaType: worker, rank: 0, pods: 1}
          - {replicaType: worker, rank: 0, generation: 0, exitCode: 2}
          - {replicaType: worker, rank: 0, generation: 5, phase: Running}
    metrics:
      - {name: jobs_succeeded, max: 0}
      - {name: no_such_metric, min: 0}
    events:
      - {type: JobPhaseChanged, job: a, phase: Succeeded}
      - {type: PodRunning, job: a}
)",
                          {{"jobs_succeeded", 1}});
  CHECK(has(diff, "expect.jobs[0] (a).phase: expected Failed, observed Succeeded"));
  CHECK(has(diff, "expect.jobs[0] (a).restartCount: expected in"));
  CHECK(has(diff, "expect.jobs[0] (a).phaseAt.Paused: expected in"));
  CHECK(has(diff, "observed never"));
  CHECK(has(diff, "expect.jobs[0] (a).phaseAt.Running: expected in"));
  CHECK(has(diff, "(worker rank 0).pods: expected in"));
  CHECK(has(diff, "(worker rank 0 generation 0).exitCode: expected 2, observed 1"));
  CHECK(has(diff, "(worker rank 0 generation 5): no such pod (the rank had 2 pods)"));
  CHECK(has(diff, "expect.metrics[0]: jobs_succeeded expected in [-inf, 0], observed 1"));
  CHECK(has(diff, "expect.metrics[1]: metric no_such_metric is unknown"));
  CHECK(has(diff, "expect.events[1]"));
  // A job's messages carry its last events, so a failure reads without the event log.
  CHECK(has(diff, "its last events:"));
  CHECK(diff.size() == 10);
}

TEST_CASE("expect: a job the run never submitted is named") {
  const auto sc = scenario_with("    jobs:\n      - {name: a, phase: Succeeded}\n");
  expect::ExpectationChecker ck(*sc.expect, sc.default_namespace);
  const auto diff = ck.check({}, {});
  REQUIRE(diff.size() == 1);
  CHECK(diff[0] == "expect.jobs[0] (a): job a was not submitted in the run");
}

TEST_CASE("expect: fields of final objects are read only when the block names some") {
  const auto plain = scenario_with("    jobs:\n      - {name: a, phase: Succeeded}\n");
  CHECK_FALSE(expect::ExpectationChecker(*plain.expect, plain.default_namespace).needs_objects());
  const auto fields =
      scenario_with("    jobs:\n      - name: a\n        fields: {status.phase: Succeeded}\n");
  CHECK(expect::ExpectationChecker(*fields.expect, fields.default_namespace).needs_objects());
}
