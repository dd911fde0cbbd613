// The plugin boundary: registry, purity, pod and PodGroup construction (§8.1, §10, §1.1).
#include "support.hpp"

#include <stdexcept>

#include "controllers/kinds.hpp"

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;

TEST_CASE("Registry: the default registry holds the three kinds in order") {
  const Registry r = make_default_registry();
  const auto all = r.controllers();
  REQUIRE(all.size() == 3);
  CHECK(all[0]->kind() == "GenericJob");
  CHECK(all[1]->kind() == "PyTorchTrainingJob");
  CHECK(all[2]->kind() == "DeepSpeedJob");
  for (const auto* c : all) CHECK(c->api_version() == "batch.tensorstack.dev/v1beta1");
}

TEST_CASE("Registry: find by apiVersion and kind") {
  const Registry r = make_default_registry();
  REQUIRE(r.find("batch.tensorstack.dev/v1beta1", "DeepSpeedJob") != nullptr);
  CHECK(r.find("batch.tensorstack.dev/v1beta1", "DeepSpeedJob")->kind() == "DeepSpeedJob");
  CHECK(r.find("batch.tensorstack.dev/v1", "DeepSpeedJob") == nullptr);
  CHECK(r.find("batch.tensorstack.dev/v1beta1", "MPIJob") == nullptr);
}

TEST_CASE("Registry: a duplicate apiVersion and kind is rejected") {
  Registry r = make_default_registry();
  CHECK_THROWS_AS(r.add(std::make_unique<GenericJobController>()), std::invalid_argument);
  CHECK(r.controllers().size() == 3);
}

TEST_CASE("Controller: a job of another kind is rejected") {
  const model::Job job = make_generic({{"worker", 1}});
  const ControllerOptions opt;
  const ReconcileInput in{job, {}, nullptr, std::nullopt, {}, opt};
  CHECK_THROWS_AS(PyTorchTrainingJobController{}.reconcile(in), std::invalid_argument);
}

TEST_CASE("§1.1 transition graph: terminal phases have no outgoing edge") {
  for (auto to : {JobPhase::Pending, JobPhase::Running, JobPhase::Paused, JobPhase::Resuming,
                  JobPhase::Unknown}) {
    CHECK_FALSE(is_allowed_transition(JobPhase::Succeeded, to));
    CHECK_FALSE(is_allowed_transition(JobPhase::Failed, to));
  }
  CHECK_FALSE(is_allowed_transition(JobPhase::Succeeded, JobPhase::Failed));
  CHECK_FALSE(is_allowed_transition(JobPhase::Failed, JobPhase::Succeeded));
}

TEST_CASE("§1.1 transition graph: documented edges") {
  CHECK(is_allowed_transition(std::nullopt, JobPhase::Pending));
  CHECK(is_allowed_transition(std::nullopt, JobPhase::Paused));
  CHECK_FALSE(is_allowed_transition(std::nullopt, JobPhase::Running));
  CHECK(is_allowed_transition(JobPhase::Pending, JobPhase::Running));
  CHECK(is_allowed_transition(JobPhase::Running, JobPhase::Paused));
  CHECK(is_allowed_transition(JobPhase::Paused, JobPhase::Resuming));
  CHECK(is_allowed_transition(JobPhase::Resuming, JobPhase::Running));
  CHECK_FALSE(is_allowed_transition(JobPhase::Paused, JobPhase::Running));
  CHECK_FALSE(is_allowed_transition(JobPhase::Running, JobPhase::Pending));
  CHECK_FALSE(is_allowed_transition(JobPhase::Running, JobPhase::Resuming));
  CHECK(
      is_allowed_transition(JobPhase::Pending, JobPhase::Failed));  // §11 Q6 deadline while pending
}

TEST_CASE("Purity: reconcile is deterministic and leaves its inputs unchanged") {
  World w(make_pytorch({{"master", 1}, {"worker", 2}}));
  use_t9k_scheduler(w.job);
  w.start();
  w.fail("job-worker-1", 1);
  const model::Job job_before = w.job;
  const auto pods_before = w.pods;
  const auto group_before = w.pod_group;
  const auto* c = w.registry.find(model::kBatchApiVersion, "PyTorchTrainingJob");
  const ReconcileInput in{w.job, w.pods, &*w.pod_group, std::nullopt, w.now, w.options};
  const auto a = c->reconcile(in);
  const auto b = c->reconcile(in);
  CHECK(a.status == b.status);
  CHECK(a.actions.size() == b.actions.size());
  CHECK(w.job == job_before);
  CHECK(w.pods == pods_before);
  CHECK(w.pod_group == group_before);
}

TEST_CASE("§10 pod creation: name, labels, owner, requests and scheduler fields") {
  World w(make_generic({{"worker", 2}}));
  use_t9k_scheduler(w.job, "research", 50);
  w.step();
  const auto created = w.creates();
  REQUIRE(created.size() == 2);
  const auto& p = created[1];
  CHECK(p.metadata.name == "job-worker-1");
  CHECK(p.metadata.namespace_ == "ns");
  CHECK(p.job_name == "job");
  CHECK(p.replica_type == "worker");
  CHECK(p.rank == 1);
  // §10's labels are implied by the pod's fields (model::pod_labels), not stored: a template
  // without labels leaves none in the pod's metadata.
  CHECK(p.metadata.labels.empty());
  REQUIRE(p.standard_labels == model::JobKind::GenericJob);
  const model::Labels labels = model::pod_labels(p);
  CHECK(labels.size() == 8);
  CHECK(labels.at("genericjob") == "job");
  CHECK(labels.at("genericjob-replica") == "job-worker-1");
  CHECK(labels.at(model::kLabelOwnerName) == "job");
  CHECK(labels.at(model::kLabelComponentType) == "user");
  CHECK(labels.at(model::kLabelComponent) == "genericjob");
  CHECK(labels.at(model::kLabelGroupName) == "job");
  CHECK(labels.at(model::kLabelQueue) == "research");
  CHECK(labels.at(model::kLabelRole) == "worker");
  CHECK(p.scheduler_name == model::kT9kSchedulerName);
  CHECK(p.queue == "research");
  CHECK(p.pod_group == "job");
  CHECK(p.role == "worker");
  REQUIRE(p.metadata.owner_references.size() == 1);
  CHECK(p.metadata.owner_references[0].kind == "GenericJob");
  CHECK(p.metadata.owner_references[0].controller);
  // requests from the template via model::pod_requests: the GPU limit becomes a request.
  CHECK(model::get_resource(*p.requests, model::kResourceGpu) == model::Quantity::from_units(1));
  CHECK(model::get_resource(*p.requests, model::kResourceCpu) == model::Quantity::from_units(2));
  CHECK(p.command == std::vector<std::string>{"python", "train.py"});
  CHECK_FALSE(p.debug);
}

TEST_CASE("§8.1 default scheduler: no queue or group labels") {
  World w(make_generic({{"worker", 1}}));
  w.generic().spec.replica_specs[0].template_.edit().spec.scheduler_name = "my-scheduler";
  w.step();
  const auto p = w.creates().at(0);
  CHECK(p.scheduler_name == "my-scheduler");
  CHECK(p.queue.empty());
  CHECK(p.pod_group.empty());
  const model::Labels labels = model::pod_labels(p);
  CHECK(labels.count(model::kLabelGroupName) == 0);
  CHECK(labels.count(model::kLabelQueue) == 0);
  CHECK(labels.count(model::kLabelRole) == 0);
  CHECK(labels.at(model::kLabelOwnerName) == "job");
  CHECK_FALSE(w.pod_group.has_value());
}

TEST_CASE("§10 labels over the template's: the controller's win, the template's others stay") {
  World w(make_generic({{"worker", 1}}));
  use_t9k_scheduler(w.job, "research", 50);
  auto& tl = w.generic().spec.replica_specs[0].template_.edit().metadata.labels;
  tl["app"] = "train";
  tl[model::kLabelOwnerName] = "someone-else";
  tl["genericjob-replica"] = "other";
  w.step();
  const auto p = w.creates().at(0);
  // Stored: the template's labels but those §10 sets, which are implied.
  CHECK(p.metadata.labels == model::Labels{{"app", "train"}});
  const model::Labels labels = model::pod_labels(p);
  CHECK(labels.size() == 9);
  CHECK(labels.at("app") == "train");
  CHECK(labels.at(model::kLabelOwnerName) == "job");
  CHECK(labels.at("genericjob-replica") == "job-worker-0");
  // A pod without implied labels (a plugin controller's) has its metadata's only.
  model::Pod plain = p;
  plain.standard_labels.reset();
  CHECK(model::pod_labels(plain) == model::Labels{{"app", "train"}});
}

TEST_CASE("§8.1 PodGroup: minMember = total replicas, roles per type, queue and priority") {
  World w(make_pytorch({{"ps", 1}, {"worker", 4}}));
  use_t9k_scheduler(w.job, "default", 10);
  w.step();
  REQUIRE(w.pod_group.has_value());
  REQUIRE(std::holds_alternative<CreatePodGroup>(
      w.last.actions.front()));  // the gang exists before its pods
  const auto& pg = *w.pod_group;
  CHECK(pg.metadata.name == "job");
  CHECK(pg.spec.min_member == 5);
  REQUIRE(pg.spec.roles.size() == 2);
  CHECK(pg.spec.roles[0].name == "ps");
  CHECK(pg.spec.roles[0].min_member == 1);
  CHECK(pg.spec.roles[1].min_member == 4);
  CHECK(pg.spec.queue == "default");
  CHECK(pg.spec.priority == 10);
  CHECK(pg.metadata.creation_timestamp == w.now);
  // The PodGroup and the pods of one reconcile name the job with one shared list (issue 49).
  REQUIRE(pg.metadata.owner_references.size() == 1);
  CHECK(pg.metadata.owner_references[0].kind == "PyTorchTrainingJob");
  CHECK(pg.metadata.owner_references[0].name == "job");
  CHECK(pg.metadata.owner_references[0].controller);
  const auto created = w.creates();
  REQUIRE(created.size() == 5);
  for (const auto& p : created)
    CHECK(p.metadata.owner_references.shares_with(pg.metadata.owner_references));
}

TEST_CASE("§8.3 PodGroup queue defaults to default") {
  World w(make_generic({{"worker", 1}}));
  use_t9k_scheduler(w.job, "", 0);
  w.step();
  REQUIRE(w.pod_group.has_value());
  CHECK(w.pod_group->spec.queue == "default");
  CHECK(w.creates().at(0).queue == "default");
}

TEST_CASE("§8.1 PodGroup is updated in place when the replica count changes") {
  World w(make_generic({{"worker", 2}}));
  use_t9k_scheduler(w.job);
  w.step_at(seconds(0));
  w.generic().spec.replica_specs[0].replicas = 3;
  w.step_at(seconds(5));
  CHECK(w.pod_group_creates == 1);
  CHECK(w.pod_group_updates == 1);
  CHECK(w.pod_group->spec.min_member == 3);
  CHECK(w.pod_group->metadata.creation_timestamp == t9k::kernel::kTimeZero);
  CHECK(w.has("job-worker-2"));
}
