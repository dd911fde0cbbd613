// `t9ksim validate` on manifests: a kubectl List of mixed kinds with server fields, and the lint
// warnings about manifests that waste capacity (docs/scenario-format.md "Lint").
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace sc = t9k::scenarios;

namespace {

std::vector<sc::Diagnostic> of(const std::vector<sc::Diagnostic>& ds, sc::Severity s) {
  std::vector<sc::Diagnostic> out;
  std::copy_if(ds.begin(), ds.end(), std::back_inserter(out),
               [&](const sc::Diagnostic& d) { return d.severity == s; });
  return out;
}

std::string all(const std::vector<sc::Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += sc::format_diagnostic(d) + "\n";
  return out;
}

constexpr const char* kDeepSpeed = R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: DeepSpeedJob
metadata: {name: ds}
spec:
  config: {slotsPerWorker: 8, run: {python: [train.py]}}
  worker:
    replicas: REPLICAS
    template:
      spec:
        containers: [{name: w, image: deepspeed, resources: {limits: {nvidia.com/gpu: 8}}}]
  runPolicy: {POLICY}
)";

std::string deepspeed(const std::string& replicas, const std::string& policy) {
  std::string s = kDeepSpeed;
  s.replace(s.find("REPLICAS"), 8, replicas);
  s.replace(s.find("POLICY"), 6, policy);
  return s;
}

}  // namespace

TEST_CASE(
    "lint: a multi-worker DeepSpeedJob without cleanUpPolicy keeps its sshd workers (spec section "
    "5)") {
  struct Row {
    std::string replicas, policy;
    bool warns;
  };
  for (const auto& row : std::vector<Row>{{"2", "", true},
                                          {"4", "cleanUpPolicy: None", true},
                                          {"4", "cleanUpPolicy: All", false},
                                          {"4", "cleanUpPolicy: Unfinished", false},
                                          {"1", "", false}}) {
    INFO(row.replicas << " workers, {" << row.policy << "}");
    const auto ds = sc::validate_text(deepspeed(row.replicas, row.policy), "ds.yaml");
    INFO(all(ds));
    CHECK(of(ds, sc::Severity::Error).empty());
    const auto w = of(ds, sc::Severity::Warning);
    CHECK(w.size() == (row.warns ? 1u : 0u));
    if (row.warns && !w.empty()) {
      CHECK(w[0].path == "spec.runPolicy.cleanUpPolicy");
      CHECK(w[0].message.find("sshd pods keep their resources") != std::string::npos);
      CHECK(w[0].line == 1);
    }
  }
}

TEST_CASE(
    "lint: an elastic PyTorchTrainingJob without torchrun, a T9k job without requests (spec "
    "sections 4.3, 8)") {
  const std::string text = R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: elastic}
spec:
  elastic: {enabled: true, minReplicas: 1, maxReplicas: 4, expectedReplicas: 2}
  scheduler: {t9kScheduler: {queue: default}}
  replicaSpecs:
  - type: worker
    replicas: 2
    template:
      spec:
        containers: [{name: p, image: pytorch}]
---
apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: fine}
spec:
  elastic: {enabled: true, minReplicas: 1, maxReplicas: 4, expectedReplicas: 2}
  torchrunConfig: {enabled: true}
  scheduler: {t9kScheduler: {queue: default}}
  replicaSpecs:
  - type: worker
    replicas: 2
    template:
      spec:
        containers: [{name: p, image: pytorch, resources: {requests: {cpu: 4}}}]
)";
  const auto ds = sc::validate_text(text, "pt.yaml");
  INFO(all(ds));
  CHECK(of(ds, sc::Severity::Error).empty());
  const auto w = of(ds, sc::Severity::Warning);
  REQUIRE(w.size() == 2);
  // The loader's own warning (§4.3), at the field.
  CHECK(w[0].path == "spec.elastic.enabled");
  CHECK(w[0].message.find("effective only in torchrun mode") != std::string::npos);
  CHECK(w[0].line == 5);
  CHECK(w[1].path == "spec.replicaSpecs[0].template.spec.containers[0].resources");
  CHECK(w[1].message.find("no resource requests or limits under the T9k scheduler") !=
        std::string::npos);
  CHECK(w[1].document == 0);
}

TEST_CASE(
    "validate: a kubectl List of mixed kinds with server fields; items keep their paths and "
    "lines") {
  const std::string text = R"(apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: demo, resourceVersion: "1"}
  spec: {containers: [{name: c, image: busybox}]}
- apiVersion: batch.tensorstack.dev/v1beta1
  kind: DeepSpeedJob
  metadata:
    name: ds
    namespace: demo
    uid: 0b1c
    resourceVersion: "77"
    generation: 2
    creationTimestamp: "2024-05-01T10:00:00Z"
    managedFields: [{manager: kubectl, operation: Update, time: "2024-05-01T10:00:00Z"}]
  spec:
    config: {slotsPerWorker: 8, run: {python: [train.py]}}
    worker:
      replicas: 3
      template: {spec: {containers: [{name: w, image: ds, resources: {limits: {nvidia.com/gpu: 8}}}]}}
  status:
    phase: Running
    conditions:
    - {type: Running, status: "True", lastTransitionTime: "2024-05-01T10:01:00Z", reason: "-"}
- apiVersion: v1
  kind: Node
  metadata: {name: n0}
- apiVersion: batch.tensorstack.dev/v1beta1
  kind: GenericJob
  metadata: {name: broken}
  spec:
    replicaSpecs:
    - type: worker
      replicas: -1
      template: {spec: {containers: [{name: c, image: busybox}]}}
)";
  const auto ds = sc::validate_text(text, "export.yaml");
  INFO(all(ds));
  const auto errors = of(ds, sc::Severity::Error);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "items[3].spec.replicaSpecs[0].replicas");
  CHECK(errors[0].line == 37);
  const auto w = of(ds, sc::Severity::Warning);
  REQUIRE(w.size() == 3);
  CHECK(w[0].path == "items");
  CHECK(w[0].message.find(
            "found 2 objects that are not T9k objects (1 Node, 1 Pod); not read as manifests") !=
        std::string::npos);
  CHECK(w[1].path == "items[1].spec.runPolicy.cleanUpPolicy");
  CHECK(w[1].line == 9);
  // The Node without a status could not make a cluster (spec.cluster.fromExport).
  CHECK(w[2].path == "items[2].status.allocatable");
  CHECK(
      w[2].message.find("spec.cluster.fromExport would refuse this: missing status.allocatable") !=
      std::string::npos);
  // An empty List is fine; a List whose items are not a list is an error at items.
  CHECK(of(sc::validate_text("apiVersion: v1\nkind: List\nitems: []\n", "e.yaml"),
           sc::Severity::Error)
            .size() == 1);
  const auto bad = of(sc::validate_text("apiVersion: v1\nkind: List\nitems: {a: 1}\n", "b.yaml"),
                      sc::Severity::Error);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].path == "items");
}

TEST_CASE("validate of a cluster export checks its Nodes and says what fromExport would build") {
  // docs/traces.md "Cluster from an export"; the fixture has two A100 nodes, one tainted.
  const std::string fixture =
      std::string(T9KSIM_SOURCE_DIR) + "/tests/traces/fixtures/t9k-cluster-export.yaml";
  const auto ok = t9k::scenarios::validate_file(fixture);
  std::string all;
  for (const auto& d : ok) all += t9k::scenarios::format_diagnostic(d) + "\n";
  INFO(all);
  CHECK_FALSE(t9k::scenarios::has_errors(ok));
  CHECK_THAT(all, Catch::Contains("cluster from the export: 2 nodes in 2 pools"));
  CHECK_THAT(all, Catch::Contains("taints are not simulated"));

  std::ifstream in(fixture);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string memory = "memory: 1040Gi";
  text.replace(text.find(memory), memory.size(), "memory: plenty");
  const auto bad = t9k::scenarios::validate_text(text, "export.yaml", {});
  std::string msgs;
  for (const auto& d : bad) msgs += t9k::scenarios::format_diagnostic(d) + "\n";
  INFO(msgs);
  CHECK_FALSE(t9k::scenarios::has_errors(bad));  // the manifests load; the cluster would not
  CHECK_THAT(msgs, Catch::Contains("warning: items[10].status.allocatable.memory: "
                                   "spec.cluster.fromExport would refuse this: "
                                   "invalid quantity \"plenty\""));
  CHECK_THAT(msgs, !Catch::Contains("the replay does not start"));
}
