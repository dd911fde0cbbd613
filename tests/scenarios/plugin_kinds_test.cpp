// A job kind only a plugin knows (docs/plugins-go.md §7, issue 46 item 3): the loader accepts it
// when a plugin entry serves its apiVersion and kind, keeps its spec as written, and refuses,
// with the field and a clear message, what the world cannot do with such a kind.
#include <catch2/catch.hpp>

#include <string>

#include "model/jobs.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

using namespace t9k::scenarios;
namespace m = t9k::model;

namespace {

const std::string kPlugin =
    "  plugins:\n"
    "    controllers:\n"
    "    - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, command: [kubeflow-pytorchjob]}\n";

const std::string kJob = R"(    jobs:
    - submitAt: 0s
      behaviour: {runTime: 1h}
      manifest:
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: kf}
        spec:
          runPolicy: {backoffLimit: 3}
          pytorchReplicaSpecs:
            Master: {replicas: 1, restartPolicy: ExitCode, template: {spec: {containers: [{name: pytorch, image: i}]}}}
)";

std::string scenario(const std::string& plugins, const std::string& workload,
                     const std::string& operations = "") {
  return "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  horizon: 1d\n"
         "  cluster:\n    nodePools: [{name: gpu, count: 1, gpusPerNode: 8, cpu: 64, memory: "
         "512Gi}]\n  scheduler: {name: default}\n" +
         plugins + "  workload:\n" + workload + operations;
}

std::string listing(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += format_diagnostic(d) + "\n";
  return s;
}

}  // namespace

TEST_CASE("a kind a plugin serves loads with its spec as written", "[scenario][plugin-kinds]") {
  const auto r = parse_scenario(scenario(kPlugin, kJob), "s.yaml", {});
  INFO(listing(r.diagnostics));
  REQUIRE(r.ok());
  const auto& sc = *r.scenario;
  REQUIRE(sc.workload.jobs.size() == 1);
  const auto* job = std::get_if<m::PluginJob>(&sc.workload.jobs[0].job);
  REQUIRE(job != nullptr);
  CHECK(job->api_version == "kubeflow.org/v1");
  CHECK(job->kind == "PyTorchJob");
  CHECK(m::kind_of(sc.workload.jobs[0].job) == m::JobKind::Plugin);
  CHECK(job->spec.json.find(R"("pytorchReplicaSpecs":{"Master":{"replicas":1,)") !=
        std::string::npos);
  CHECK(job->spec.json.find(R"("backoffLimit":3)") != std::string::npos);
  REQUIRE(sc.controller_plugins.size() == 1);
  CHECK(sc.controller_plugins[0].serves(sc.workload.jobs[0].job));
}

TEST_CASE("what the world cannot do with a plugin's kind is refused at load",
          "[scenario][plugin-kinds]") {
  struct Row {
    const char* rule;
    std::string input;
    std::string path;
    std::string message_part;
  };
  const std::vector<Row> rows = {
      {"a kind no plugin serves", scenario("", kJob), "spec.workload.jobs[0].manifest",
       "found kubeflow.org/v1 PyTorchJob \"kf\", a kind no plugin serves"},
      {"pausing it",
       scenario(kPlugin, kJob, "  operations: [{at: 1h, action: pauseJob, job: kf}]\n"),
       "spec.operations[0].job", "only a plugin knows what pausing or scaling a PyTorchJob means"},
      {"one plugin per kind",
       scenario(kPlugin + "    - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, command: [x]}\n",
                kJob),
       "spec.plugins.controllers[1]", "a second time"},
      {"not a generator template",
       scenario(
           kPlugin,
           "    generators: [{name: g, interarrival: 1h, behaviour: {runTime: 1h}, manifest: "
           "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: t}, spec: {}}}]\n"),
       "spec.workload.generators[0]", "allowed: a job template (GenericJob, PyTorchTrainingJob"},
  };
  for (const auto& row : rows) {
    INFO("rule: " << row.rule);
    INFO("input:\n" << row.input);
    const auto r = parse_scenario(row.input, "s.yaml", {});
    const auto errors = errors_only(r.diagnostics);
    INFO("diagnostics:\n" << listing(r.diagnostics));
    CHECK_FALSE(r.ok());
    REQUIRE(errors.size() >= 1);
    CHECK(errors[0].path.rfind(row.path, 0) == 0);
    CHECK(errors[0].message.find(row.message_part) != std::string::npos);
  }
}
