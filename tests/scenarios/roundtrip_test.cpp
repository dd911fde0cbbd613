// load(serialise(x)) == x for every kind, with full status, and for every real manifest.
#include <catch2/catch.hpp>

#include <filesystem>

#include "scenarios/format/serialize.hpp"
#include "tests/outside_data.hpp"

using namespace t9k::scenarios;
namespace m = t9k::model;
using t9k::kernel::at;
using t9k::kernel::microseconds;
using t9k::kernel::seconds;

namespace {

Object round_trip(const Object& o) {
  const std::string json = to_json(o);
  const ManifestSet set = parse_manifests(json, "roundtrip.json");
  std::string listing;
  for (const auto& d : set.diagnostics) listing += format_diagnostic(d) + "\n";
  INFO(json);
  INFO(listing);
  REQUIRE(set.diagnostics.empty());
  REQUIRE(set.objects.size() == 1);
  return set.objects[0].object;
}

m::ObjectMeta meta(const std::string& name) {
  m::ObjectMeta md;
  md.name = name;
  md.namespace_ = "team-a";
  md.labels = {{"app", name}, {"tensorstack.dev/owner-name", "alice"}};
  md.annotations = m::Labels{{"note", "free text: with spaces, \"quotes\" and unicode é"}};
  md.uid = "1b4e28ba-2fa1-11d2-883f-0016d3cca427";
  md.creation_timestamp = at(seconds(86400 * 365) + microseconds(250));
  md.owner_references = {{"batch.tensorstack.dev/v1beta1", "GenericJob", "parent", "u-1", true}};
  return md;
}

m::PodTemplateSpec pod(const std::string& container) {
  m::PodTemplateSpec t;
  t.metadata.labels = {{"role", "trainer"}};
  t.metadata.annotations = m::Labels{{"sidecar.istio.io/inject", "false"}};
  m::Container init;
  init.name = "fetch";
  init.image = "busybox";
  init.command = {"sh", "-c", "echo $(rank)"};
  init.resources.requests = {{"cpu", m::Quantity::parse("500m")}};
  t.spec.init_containers = {init};
  m::Container c;
  c.name = container;
  c.image = "t9kpublic/pytorch:1.13";
  c.command = {"torchrun"};
  c.args = {"train.py", "--lr", "0.1"};
  c.resources.requests = {{"cpu", m::Quantity::parse("1.5")},
                          {"memory", m::Quantity::parse("1536Mi")}};
  c.resources.limits = {{"cpu", m::Quantity::parse("4")},
                        {"memory", m::Quantity::parse("8Gi")},
                        {"nvidia.com/gpu", m::Quantity::parse("2")}};
  t.spec.containers = {c};
  t.spec.node_selector = {{"nvidia.com/gpu.product", "A100"}};
  t.spec.scheduler_name = "t9k-scheduler";
  t.spec.priority_class_name = "high";
  t.spec.priority = 1000;
  t.spec.restart_policy = "Never";
  t.spec.termination_grace_period_seconds = 45;
  t.spec.active_deadline_seconds = 7200;
  t.spec.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule"},
                        {"dedicated", "Equal", "ml", ""}};
  return t;
}

m::RunMode run_mode() {
  m::RunMode r;
  r.debug.enabled = true;
  r.debug.replica_specs = {{"worker", true, {"sleep", "3600"}}, {"worker", false, {}}};
  r.pause.enabled = false;
  r.pause.resume_specs = {{"worker", true, {"python"}, {"resume.py"}}};
  return r;
}

m::JobStatus status(bool run_policy, bool tensorboard) {
  m::JobStatus s;
  s.phase = m::JobPhase::Failed;
  s.conditions = {
      {m::JobConditionType::Initialized, m::ConditionStatus::True, at(seconds(10)), "", ""},
      {m::JobConditionType::Running, m::ConditionStatus::False, at(seconds(3600) + microseconds(1)),
       "Failed", "The job is failed with rule: {\"worker\":[\"0\"]}"},
      {m::JobConditionType::ReplicaFailure, m::ConditionStatus::True, at(seconds(3599)),
       "ErrorInPod", "Pod[job-worker-0] exited with error code 127"},
      {m::JobConditionType::Completed, m::ConditionStatus::True, at(seconds(3600)), "Failed", ""},
      {m::JobConditionType::Failed, m::ConditionStatus::True, at(seconds(3600)), "Failed", ""},
      {m::JobConditionType::Paused, m::ConditionStatus::Unknown, at(seconds(0)), "", ""}};
  s.aggregate = {1, 2, 3, 4, 5, 6, 7};
  m::ReplicaStatus r0{"job-worker-0",
                      "uid-0",
                      {{"pytorch", "terminated", 137}, {"sidecar", "running", std::nullopt}},
                      2,
                      m::ReplicaPhase::Failed};
  m::ReplicaStatus r1{"job-worker-1", "", {}, 0, m::ReplicaPhase::Deleted};
  s.tasks = {{"worker", 3, {r0, r1}}, {"ps", 0, {}}};
  if (run_policy) s.backoff_count = 3;
  // The controllers' bookkeeping round-trips too (the plugin protocol relies on it).
  s.start_time = at(seconds(10));
  s.completion_time = at(seconds(3600) + microseconds(7));
  s.active_since = at(seconds(12));
  if (run_policy) s.elastic_replicas = 4;
  if (tensorboard) {
    m::DependentStatus d;
    d.name = "tensorboard";
    d.dependent = {"tensorstack.dev/v1beta1", "TensorBoard", "job", "team-a", "tb-uid"};
    d.ready = true;
    d.reason = "DependentReady";
    d.action = "NOP";
    d.note = "TensorBoard [job] is ready";
    d.type = "Normal";
    s.tensorboard = d;
  }
  return s;
}

}  // namespace

TEST_CASE("timestamps round-trip at microsecond precision", "[roundtrip]") {
  for (const std::int64_t us :
       {0LL, 1LL, 999999LL, 1000000LL, 86400000000LL + 250LL, 1704164645123456LL}) {
    const m::SimTime t = at(microseconds(us));
    m::SimTime back{};
    INFO(format_timestamp(t));
    REQUIRE(parse_timestamp(format_timestamp(t), back));
    CHECK(back == t);
  }
  m::SimTime t{};
  CHECK(parse_timestamp("2024-01-02T03:04:05Z", t));
  CHECK(t.time_since_epoch().count() == 1704164645LL * 1000000);
  CHECK(parse_timestamp("2024-01-02T04:04:05+01:00", t));
  CHECK(t.time_since_epoch().count() == 1704164645LL * 1000000);
  CHECK(parse_timestamp("1970-01-01T00:00:00.5Z", t));
  CHECK(t.time_since_epoch().count() == 500000);
  CHECK(format_timestamp(at(seconds(5) + microseconds(250))) == "1970-01-01T00:00:05.000250Z");
  for (const char* bad :
       {"", "yesterday", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "1969-12-31T23:59:59Z",
        "2024-01-02T03:04:05", "2024-01-02T03:04:05.0000001Z", "2024-01-02 03:04:05Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_timestamp(bad, t));
  }
}

TEST_CASE("GenericJob with full status round-trips", "[roundtrip]") {
  m::GenericJob j;
  j.metadata = meta("generic");
  j.spec.success_rules = {{{{"master", {0}}}}, {{{"worker", {0, 1}}, {"master", {1}}}}};
  j.spec.failure_rules = {{{{"master", {0}}}}};
  j.spec.service = m::ServiceOption{{{"http", 2222}, {"grpc", 50051}}};
  j.spec.run_mode = run_mode();
  j.spec.run_mode.edit().debug.replica_specs[0].type = "master";
  j.spec.clean_up_policy = m::CleanUpPolicy::Unfinished;
  j.spec.scheduler.t9k_scheduler = m::T9kScheduler{"research", 50};
  j.spec.replica_specs = {{"master", 2, {m::RestartPolicyType::Always, 5}, pod("main")},
                          {"worker", 3, {m::RestartPolicyType::Never, 0}, pod("main")}};
  j.status = status(false, false);
  const Object back = round_trip(j);
  CHECK(std::get<m::GenericJob>(back) == j);
}

TEST_CASE("PyTorchTrainingJob with full status round-trips", "[roundtrip]") {
  m::PyTorchTrainingJob j;
  j.metadata = meta("torch");
  j.spec.replica_specs = {{"ps", 1, std::nullopt, m::RestartPolicyType::OnFailure, pod("pytorch")},
                          {"worker", 4, 3, m::RestartPolicyType::ExitCode, pod("pytorch")}};
  j.spec.elastic = m::ElasticConfig{true, 2, 8, 4};
  j.spec.torchrun_config =
      m::TorchrunConfig{true, 10, "gpu", m::RdzvBackend::etcd_v2, {"--max-restarts", "3"}};
  j.spec.run_mode = run_mode();
  j.spec.run_mode.edit().debug.replica_specs[1].type = "ps";
  j.spec.run_policy = {86400, 20, m::CleanUpPolicy::All};
  j.spec.tensorboard_spec =
      m::TensorBoardSpec{"tensorflow/tensorflow:2.11.0", {"t9k://pvc/a/log", "t9k://pvc/b/log"}};
  j.spec.scheduler.t9k_scheduler = m::T9kScheduler{"default", 0};
  j.status = status(true, true);
  const Object back = round_trip(j);
  CHECK(std::get<m::PyTorchTrainingJob>(back) == j);
}

TEST_CASE("DeepSpeedJob with full status round-trips", "[roundtrip]") {
  m::DeepSpeedJob j;
  j.metadata = meta("deepspeed");
  j.spec.scheduler.t9k_scheduler = m::T9kScheduler{"default", 100};
  j.spec.run_policy = {std::nullopt, 0, m::CleanUpPolicy::Unfinished};
  j.spec.run_mode = run_mode();
  j.spec.elastic = m::ElasticConfig{false, 0, 0, 0};
  j.spec.config->custom_command = "deepspeed --hostfile /etc/mpi/hostfile train.py";
  j.spec.config->slots_per_worker = 8;
  j.spec.config->local_rank = false;
  j.spec.config->autotune = m::AutotuneType::tune;
  j.spec.config->run.module = std::vector<std::string>{"my.module", "--flag"};
  j.spec.config->other_args = {"--zero", "2"};
  j.spec.disable_custom_env = true;
  j.spec.worker = {3, pod("worker"), m::RestartPolicyType::Never};
  j.status = status(true, false);
  const Object back = round_trip(j);
  CHECK(std::get<m::DeepSpeedJob>(back) == j);

  // run.python given as an empty list stays "set".
  m::DeepSpeedJob k = j;
  k.spec.config->custom_command.reset();
  k.spec.config->run = {};
  k.spec.config->run.exec = std::vector<std::string>{};
  CHECK(std::get<m::DeepSpeedJob>(round_trip(k)) == k);
}

TEST_CASE("Queue with status round-trips", "[roundtrip]") {
  m::Queue q;
  q.metadata = meta("research");
  q.spec.quota = m::ResourceList{{"cpu", m::Quantity::parse("40")},
                                 {"memory", m::Quantity::parse("512Gi")},
                                 {"nvidia.com/gpu", m::Quantity::parse("16")}};
  q.spec.priority = 100;
  q.spec.preemptible = false;
  q.spec.closed = true;
  q.spec.max_duration = t9k::kernel::parse_max_duration("1w2d3h");
  q.spec.max_duration_text = "1w2d3h";
  q.spec.resource_shape_profile = "small";
  q.spec.node_selector = m::LabelSelector{
      {{"pool", "a100"}},
      {{"zone", m::SelectorOperator::NotIn, {"x", "y"}}, {"gpu", m::SelectorOperator::Exists, {}}}};
  q.spec.namespace_selector = m::LabelSelector{};
  q.status.allocated = {{"cpu", m::Quantity::parse("38")}};
  q.status.pod_groups = 4;
  q.status.pods_pending = 1;
  q.status.pods_running = 2;
  q.status.pods_succeeded = 3;
  q.status.pods_failed = 4;
  q.status.pods_unknown = 5;
  CHECK(std::get<m::Queue>(round_trip(q)) == q);

  m::Queue minimal;
  minimal.metadata.name = "default";
  CHECK(std::get<m::Queue>(round_trip(minimal)) == minimal);
}

TEST_CASE("PodGroup with status round-trips", "[roundtrip]") {
  m::PodGroup g;
  g.metadata = meta("job-test");
  g.spec.min_member = 5;
  g.spec.roles = {{"ps", 1}, {"worker", 4}};
  g.spec.queue = "research";
  g.spec.priority = 10;
  g.spec.topology_policy = "rack";
  g.status.group_scheduled = true;
  g.status.sufficient_group_member = false;
  g.status.allocated = {{"nvidia.com/gpu", m::Quantity::parse("4")}};
  g.status.pending = 1;
  g.status.running = 4;
  g.status.succeeded = 2;
  g.status.failed = 1;
  g.status.unknown = 3;
  CHECK(std::get<m::PodGroup>(round_trip(g)) == g);
}

TEST_CASE("every real manifest and example round-trips", "[roundtrip]") {
  namespace fs = std::filesystem;
  std::size_t count = 0;
  const auto published = t9k::tests::outside_data("examples/t9k-manifests");
  if (!published) return;
  for (const fs::path& dir : {*published, fs::path(T9KSIM_SOURCE_DIR) / "scenarios" / "examples"}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      const ManifestSet set = load_manifests(e.path().string());
      if (!set.ok()) continue;  // scenarios are not manifest files
      for (const auto& o : set.objects) {
        INFO(e.path().string());
        CHECK(round_trip(o.object) == o.object);
        ++count;
      }
    }
  }
  CHECK(count >= 77 + 7);
}

TEST_CASE("a stream of objects round-trips", "[roundtrip]") {
  m::Queue q;
  q.metadata.name = "default";
  m::PodGroup g;
  g.metadata.name = "g";
  const std::vector<Object> objects = {q, g};
  const ManifestSet set = parse_manifests(to_json_stream(objects), "stream.yaml");
  REQUIRE(set.ok());
  REQUIRE(set.objects.size() == 2);
  CHECK(set.objects[0].object == objects[0]);
  CHECK(set.objects[1].object == objects[1]);
}
