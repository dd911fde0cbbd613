// Every real manifest (shared/examples) and every example of ours loads without errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "tests/outside_data.hpp"

namespace fs = std::filesystem;
using namespace t9k::scenarios;

namespace {
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string all(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += format_diagnostic(d) + "\n";
  return s;
}
}  // namespace

TEST_CASE("all 77 real T9k manifests load and validate", "[examples]") {
  const auto dir = t9k::tests::outside_data("examples/t9k-manifests");
  if (!dir) return;
  const auto files = files_in(*dir);
  REQUIRE(files.size() == 77);
  std::size_t jobs = 0;
  for (const auto& f : files) {
    INFO(f);
    const ManifestSet set = load_manifests(f);
    INFO(all(set.diagnostics));
    CHECK(set.ok());
    CHECK(set.objects.size() == 1);
    for (const auto& o : set.objects) jobs += is_job(o.object) ? 1 : 0;
    CHECK_FALSE(has_errors(validate_file(f)));
  }
  CHECK(jobs == 77);
}

TEST_CASE("real manifests keep what the simulator needs", "[examples]") {
  const auto found = t9k::tests::outside_data("examples/t9k-manifests");
  if (!found) return;
  const fs::path dir = *found;
  {
    // GPUs only under limits; rdma as an extended resource.
    const auto set =
        load_manifests((dir / "examples--deepspeed_gpt-neox_train_multi-elastic.yaml").string());
    REQUIRE(set.ok());
    const auto& job = std::get<t9k::model::DeepSpeedJob>(set.objects.at(0).object);
    CHECK(job.spec.elastic->expected_replicas == 3);
    CHECK(job.spec.config->slots_per_worker == 2);
    CHECK(job.spec.run_policy.backoff_limit == 10);
    const auto req = t9k::model::pod_requests(job.spec.worker.template_->spec);
    CHECK(req.at("nvidia.com/gpu") == t9k::model::Quantity::from_units(2));
    CHECK(req.at("cpu") == t9k::model::Quantity::from_units(2));
    CHECK(req.at("rdma/rdma_shared_device_a") == t9k::model::Quantity::from_units(1));
  }
  {
    // The real-world typo "commands" is reported as a warning with a hint, not an error.
    const auto set = load_manifests((dir / "examples--dcu_llama3_job-finetune.yaml").string());
    REQUIRE(set.ok());
    REQUIRE(set.diagnostics.size() == 1);
    CHECK(set.diagnostics[0].severity == Severity::Warning);
    CHECK(set.diagnostics[0].path == "spec.replicaSpecs[0].template.spec.containers[0].commands");
    CHECK(
        set.diagnostics[0].message ==
        "unknown field \"commands\"; did you mean \"command\"? (not a Kubernetes field; ignored)");
    CHECK(set.diagnostics[0].line == 20);
  }
}

TEST_CASE("our example manifests and scenarios validate", "[examples]") {
  const auto files = files_in(fs::path(T9KSIM_SOURCE_DIR) / "scenarios" / "examples");
  REQUIRE(files.size() >= 8);
  for (const auto& f : files) {
    INFO(f);
    const auto ds = validate_file(f);
    INFO(all(ds));
    CHECK_FALSE(has_errors(ds));
  }
}

TEST_CASE("a multi-document manifest file loads as several objects", "[examples]") {
  const auto set = load_manifests(std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples/jobs.yaml");
  REQUIRE(set.ok());
  REQUIRE(set.objects.size() == 2);
  CHECK(kind_name(set.objects[0].object) == "GenericJob");
  CHECK(kind_name(set.objects[1].object) == "PyTorchTrainingJob");
  CHECK(set.objects[1].document == 1);
  CHECK(set.objects[1].line == 15);
  const auto queues =
      load_manifests(std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples/queues.yaml");
  REQUIRE(queues.ok());
  REQUIRE(queues.objects.size() == 2);
  const auto& research = std::get<t9k::model::Queue>(queues.objects[1].object);
  CHECK(research.spec.max_duration == t9k::kernel::hours(2) + t9k::kernel::minutes(45));
  CHECK_FALSE(research.spec.is_preemptible());
  CHECK(research.spec.node_selector->matches({{"topology.kubernetes.io/zone", "tianjin"}}));
}

TEST_CASE("defaults are applied as the seeds and spec give them", "[defaults]") {
  const auto set = parse_manifests(R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: GenericJob
metadata: {name: g}
spec:
  scheduler: {t9kScheduler: {queue: q}}
  replicaSpecs: [{type: worker, template: {spec: {containers: [{name: c, image: i}]}}}]
---
apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: p}
spec:
  torchrunConfig: {enabled: true}
  replicaSpecs: [{type: worker, template: {spec: {containers: [{name: c, image: i}]}}}]
---
apiVersion: batch.tensorstack.dev/v1beta1
kind: DeepSpeedJob
metadata: {name: d}
spec:
  config: {run: {python: [train.py]}}
  worker: {template: {spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: scheduler.tensorstack.dev/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {minMember: 2}
---
apiVersion: scheduler.tensorstack.dev/v1beta1
kind: Queue
metadata: {name: q}
spec: {}
)",
                                   "defaults.yaml");
  REQUIRE(set.ok());
  using namespace t9k::model;
  const auto& g = std::get<GenericJob>(set.objects[0].object);
  CHECK(g.spec.replica_specs[0].replicas == 1);
  CHECK(g.spec.replica_specs[0].restart_policy.policy == RestartPolicyType::OnFailure);
  CHECK(g.spec.replica_specs[0].restart_policy.limit == 0);
  CHECK(g.spec.clean_up_policy == CleanUpPolicy::None);
  CHECK(g.spec.scheduler.t9k_scheduler->priority == 0);
  CHECK_FALSE(g.spec.service.has_value());
  const auto& p = std::get<PyTorchTrainingJob>(set.objects[1].object);
  CHECK(p.spec.replica_specs[0].restart_policy == RestartPolicyType::Never);
  CHECK(p.spec.run_policy.backoff_limit == 3);
  CHECK(p.spec.torchrun_config->rdzv_backend == RdzvBackend::c10d);
  CHECK_FALSE(p.spec.scheduler.t9k_scheduler.has_value());
  const auto& d = std::get<DeepSpeedJob>(set.objects[2].object);
  CHECK(d.spec.worker.restart_policy == RestartPolicyType::OnFailure);
  CHECK(d.spec.config->local_rank);
  CHECK(d.spec.config->autotune == AutotuneType::none);
  CHECK(default_debug_command(JobKind::DeepSpeedJob) ==
        std::vector<std::string>{"/usr/sbin/sshd", "-D"});
  CHECK(default_debug_command(JobKind::GenericJob) == std::vector<std::string>{"sleep", "inf"});
  const auto& pg = std::get<PodGroup>(set.objects[3].object);
  CHECK(pg.spec.queue == "default");
  CHECK(pg.spec.priority == 0);
  const auto& q = std::get<Queue>(set.objects[4].object);
  CHECK(q.spec.is_preemptible());
  CHECK_FALSE(q.spec.quota.has_value());
  CHECK_FALSE(q.spec.max_duration.has_value());
}

TEST_CASE("older spellings are read with a warning", "[legacy]") {
  const auto set = parse_manifests(R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: p}
spec:
  runMode: {debug: {enable: true}}
  torchrunConfig: {enable: true, minNodes: 2}
  elastic: {enable: true, minReplicas: 2, maxReplicas: 4, expectedReplicas: 3}
  replicaSpecs: [{type: worker, template: {spec: {containers: [{name: c, image: i}]}}}]
status:
  conditions: [{type: Initializing, status: "True", lastTransitionTime: "2024-01-02T03:04:05Z"}]
  tasks: [{type: worker, restartCount: 1, replicaStatus: [{name: p-worker-0, phase: Running}]}]
---
apiVersion: scheduler.tensorstack.dev/v1beta1
kind: Queue
metadata: {name: old}
spec: {requests: {cpu: 40}}
)",
                                   "legacy.yaml");
  INFO(all(set.diagnostics));
  REQUIRE(set.ok());
  std::vector<std::string> paths;
  for (const auto& d : set.diagnostics) {
    CHECK(d.severity == Severity::Warning);
    paths.push_back(d.path);
  }
  CHECK(paths == std::vector<std::string>{"spec.elastic.enable", "spec.torchrunConfig.enable",
                                          "spec.torchrunConfig.minNodes",
                                          "spec.runMode.debug.enable", "status.conditions[0].type",
                                          "status.tasks[0].replicaStatus", "spec.requests"});
  const auto& p = std::get<t9k::model::PyTorchTrainingJob>(set.objects[0].object);
  CHECK(p.spec.run_mode->debug.enabled);
  CHECK(p.spec.torchrun_config->enabled);
  CHECK(p.spec.elastic->enabled);
  CHECK(p.status.conditions.at(0).type == t9k::model::JobConditionType::Initialized);
  CHECK(p.status.tasks.at(0).replicas.at(0).phase == t9k::model::ReplicaPhase::Running);
  const auto& q = std::get<t9k::model::Queue>(set.objects[1].object);
  CHECK(q.spec.quota->at("cpu") == t9k::model::Quantity::from_units(40));
}
