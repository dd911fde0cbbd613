// Plugins out of process (docs/plugins.md): the process transport ends every failure with an error
// that says what happened (never a hang), and what a controller plugin answers is checked before
// the world sees it. End to end, through the command line: misbehave_test.py (every misbehaviour),
// scripts/same-outputs plugins (in and out of process give the same bytes), examples_test.py.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "plugins/adapters.hpp"
#include "plugins/checks.hpp"
#include "plugins/process.hpp"
#include "tests/controllers/support.hpp"

using namespace t9k;
using namespace t9k::controllers;
using namespace t9k::controllers::testing;
using plugins::PluginError;
using plugins::PluginProcess;
using plugins::ProcessSpec;

namespace {

ProcessSpec shell(std::string script,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  ProcessSpec s;
  s.name = "probe";
  s.command = {"sh", "-c", std::move(script)};
  s.timeout = timeout;
  return s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const PluginError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("plugin process: one line out, one line back, and a clean exit", "[plugins]") {
  PluginProcess p(shell("while read -r l; do echo \"got $l\"; done"));
  CHECK(p.exchange("a") == "got a");
  CHECK(p.exchange("{\"b\": 2}") == "got {\"b\": 2}");
  CHECK(p.close() == "exited with code 0");
  CHECK_FALSE(p.running());
}

TEST_CASE("plugin process: a long answer arrives whole", "[plugins]") {
  PluginProcess p(shell("read -r l; head -c 300000 /dev/zero | tr '\\0' x; echo"));
  CHECK(p.exchange("go") == std::string(300000, 'x'));
}

TEST_CASE("plugin process: every way it can fail is named", "[plugins]") {
  SECTION("it exits instead of answering") {
    PluginProcess p(shell("read -r l; exit 4"));
    const auto e = error_of([&] { p.exchange("x"); });
    CHECK_THAT(e, Catch::Contains(
                      "plugin probe closed its output without answering: it exited with code 4"));
  }
  SECTION("it is killed by a signal") {
    PluginProcess p(shell("read -r l; kill -9 $$"));
    CHECK_THAT(error_of([&] { p.exchange("x"); }), Catch::Contains("was killed by signal 9"));
  }
  SECTION("it does not answer in time: killed, not waited for") {
    PluginProcess p(shell("read -r l; sleep 30", std::chrono::milliseconds(200)));
    const auto start = std::chrono::steady_clock::now();
    CHECK_THAT(error_of([&] { p.exchange("x"); }), Catch::Contains("did not answer within 200 ms"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    CHECK_FALSE(p.running());
  }
  SECTION("it is gone before the request is written") {
    PluginProcess p(shell("exit 0"));
    ::usleep(200000);
    CHECK_THAT(error_of([&] { p.exchange(std::string(1 << 20, 'y')); }),
               Catch::Contains("plugin probe"));
  }
  SECTION("its program does not exist") {
    ProcessSpec s;
    s.name = "ghost";
    s.command = {"/nonexistent/plugin"};
    CHECK_THAT(error_of([&] { PluginProcess p(s); }),
               Catch::Contains("plugin ghost: cannot start /nonexistent/plugin"));
  }
  SECTION("it does not exit after its input closes") {
    PluginProcess p(
        shell("trap '' TERM; while :; do sleep 1; done", std::chrono::milliseconds(200)));
    CHECK_THAT(p.close(), Catch::Contains("did not exit after its input closed"));
  }
}

TEST_CASE("plugin process: stderr goes to its log file, in its working folder", "[plugins]") {
  const auto dir = std::filesystem::temp_directory_path() / "t9ksim-plugins-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ProcessSpec s = shell("echo \"starting in $(pwd)\" >&2; read -r l; echo ok");
  s.working_dir = dir.string();
  s.log_path = (dir / "probe.log").string();
  {
    PluginProcess p(s);
    CHECK(p.exchange("x") == "ok");
    CHECK(p.close() == "exited with code 0");
  }
  std::ifstream in(dir / "probe.log");
  std::stringstream log;
  log << in.rdbuf();
  CHECK(log.str() == "starting in " + std::filesystem::canonical(dir).string() + "\n");
}

// What a controller plugin answers is checked against the job it reconciles (plugins/adapters.hpp).
TEST_CASE("plugin answers: each rule refuses its violation with the field's path", "[plugins]") {
  model::Job job = make_generic({{"worker", 2}});
  use_t9k_scheduler(job);
  const ControllerOptions options;
  const ReconcileInput in{job, {}, nullptr, std::nullopt, kernel::at(kernel::seconds(3)), options};
  // The real controller's first answer: a Pending phase, a PodGroup, two pods.
  const ReconcileResult base = make_builtin_controller(model::JobKind::GenericJob)->reconcile(in);
  REQUIRE_NOTHROW(plugins::check_reconcile_result(in, base, "who"));
  REQUIRE(std::any_of(base.actions.begin(), base.actions.end(),
                      [](const Action& a) { return std::holds_alternative<CreatePodGroup>(a); }));
  auto first_pod = [](ReconcileResult& r) -> model::Pod& {
    for (auto& a : r.actions) {
      if (auto* c = std::get_if<CreatePod>(&a)) return c->pod;
    }
    FAIL("no CreatePod");
    throw std::logic_error("unreachable");
  };

  struct Row {
    std::string rule;
    std::function<void(ReconcileResult&)> edit;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"a pod of another job", [&](ReconcileResult& r) { first_pod(r).job_name = "other"; },
       ".pod.t9ksim.job: the pod belongs to job \"other\""},
      {"a pod in another namespace",
       [&](ReconcileResult& r) { first_pod(r).metadata.namespace_ = "elsewhere"; },
       ".pod.metadata.namespace: found \"elsewhere\"; allowed: the job's namespace \"ns\""},
      {"a replica type the job does not have",
       [&](ReconcileResult& r) { first_pod(r).replica_type = "ps"; },
       ".pod.t9ksim.replicaType: found \"ps\"; allowed: a replica type of the job (worker)"},
      {"a rank beyond the replicas", [&](ReconcileResult& r) { first_pod(r).rank = 2; },
       ".pod.t9ksim.rank: found 2; allowed: a rank in [0, 2) for replica type worker"},
      {"a pod created bound", [&](ReconcileResult& r) { first_pod(r).node_name = "gpu-0"; },
       ".pod.spec.nodeName: is set; the world sets a pod's observed state"},
      {"a pod created Running",
       [&](ReconcileResult& r) { first_pod(r).phase = model::PodPhase::Running; },
       ".pod.status.phase: is set"},
      {"a pod created terminated", [&](ReconcileResult& r) { first_pod(r).exit_code = 0; },
       ".pod.status.containerStatuses[0].state.terminated.exitCode: is set"},
      {"two pods of one name",
       [&](ReconcileResult& r) { r.actions.push_back(CreatePod{first_pod(r)}); },
       ".pod.metadata.name: \"job-worker-0\" is the name of a pod the world still stores"},
      {"a deletion of a pod it does not own",
       [&](ReconcileResult& r) {
         r.actions.push_back(DeletePod{"stranger", DeletionReason::Cleanup});
       },
       ".name: \"stranger\" is not a pod of job job"},
      {"a restart of a pod it does not own",
       [&](ReconcileResult& r) {
         r.actions.push_back(RestartTraining{{"stranger"}, 1, 1, "ScaleUp"});
       },
       ".pods[0]: \"stranger\" is not a pod of job job"},
      {"a PodGroup of another name",
       [&](ReconcileResult& r) {
         for (auto& a : r.actions) {
           if (auto* g = std::get_if<CreatePodGroup>(&a)) g->pod_group.metadata.name = "other";
         }
       },
       ".podGroup.metadata.name: found \"other\"; allowed: the job's name \"job\""},
      {"a phase the lifecycle cannot reach (none -> Running, §1.1)",
       [&](ReconcileResult& r) { r.status.phase = JobPhase::Running; },
       "result.status.phase: (none) -> Running is not a transition the job's lifecycle allows "
       "(spec §1.1)"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    ReconcileResult r = base;
    row.edit(r);
    const auto e = error_of([&] {
      plugins::check_reconcile_result(in, r, "plugin p: reconcile of job ns/job at t=3 s");
    });
    CHECK_THAT(e, Catch::StartsWith("plugin p: reconcile of job ns/job at t=3 s: "));
    CHECK_THAT(e, Catch::Contains(row.message));
  }
}

TEST_CASE("plugin answers: a terminal phase stays terminal and a stored pod's name is not reused",
          "[plugins]") {
  model::Job job = make_generic({{"worker", 1}});
  model::status_of(job).phase = JobPhase::Succeeded;
  model::Pod stored;
  stored.metadata.name = "job-worker-0";
  stored.metadata.namespace_ = "ns";
  stored.job_name = "job";
  stored.replica_type = "worker";
  const std::vector<model::Pod> pods{stored};
  const ControllerOptions options;
  const ReconcileInput in{job,    pods, nullptr, std::nullopt, kernel::at(kernel::seconds(9)),
                          options};
  ReconcileResult r;
  r.status = model::status_of(job);
  r.status.phase = JobPhase::Running;
  CHECK_THAT(error_of([&] { plugins::check_reconcile_result(in, r, "w"); }),
             Catch::Contains("Succeeded -> Running"));
  r.status.phase = JobPhase::Succeeded;
  model::Pod again = stored;
  r.actions.push_back(CreatePod{again});
  CHECK_THAT(error_of([&] { plugins::check_reconcile_result(in, r, "w"); }),
             Catch::Contains("result.actions[0].pod.metadata.name: \"job-worker-0\" is the name of "
                             "a pod the world still stores"));
  r.actions = {DeletePod{"job-worker-0", DeletionReason::Cleanup}};
  CHECK_NOTHROW(plugins::check_reconcile_result(in, r, "w"));
}

TEST_CASE(
    "plugin answers: an elastic PyTorch job's workers may reach maxReplicas, its master stays one",
    "[plugins]") {
  auto pt = make_pytorch({{"master", 1}, {"worker", 1}});
  pt.spec.elastic = model::ElasticConfig{};
  pt.spec.elastic->enabled = true;
  pt.spec.elastic->min_replicas = 1;
  pt.spec.elastic->max_replicas = 4;
  pt.spec.elastic->expected_replicas = 1;
  const model::Job job = pt;
  const ControllerOptions options;
  const ReconcileInput in{job, {}, nullptr, std::nullopt, kernel::at(kernel::seconds(1)), options};
  auto pod = [](std::string type, std::int32_t rank) {
    model::Pod p;
    p.metadata.name = fmt::format("job-{}-{}", type, rank);
    p.job_name = "job";
    p.replica_type = std::move(type);
    p.rank = rank;
    return p;
  };
  ReconcileResult r;
  r.status.phase = JobPhase::Pending;
  r.actions = {CreatePod{pod("worker", 3)}};
  CHECK_NOTHROW(plugins::check_reconcile_result(in, r, "w"));
  r.actions = {CreatePod{pod("worker", 4)}};
  CHECK_THAT(error_of([&] { plugins::check_reconcile_result(in, r, "w"); }),
             Catch::Contains("[0, 4) for replica type worker"));
  r.actions = {CreatePod{pod("master", 1)}};
  CHECK_THAT(error_of([&] { plugins::check_reconcile_result(in, r, "w"); }),
             Catch::Contains("[0, 1) for replica type master"));
}
