// Test support: job builders and a tiny "world" that applies controller actions and lets a test
// drive pod transitions, following the world's contract in controllers/controller.hpp.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "controllers/controller.hpp"

namespace t9k::controllers::testing {

using kernel::seconds;
using model::ConditionStatus;
using model::DeletionReason;
using model::JobConditionType;
using model::JobPhase;
using model::PodPhase;
using model::RestartPolicyType;

inline model::PodTemplateSpec make_template(std::int32_t gpus = 1, std::string container = "main") {
  model::PodTemplateSpec t;
  model::Container c;
  c.name = std::move(container);
  c.image = "img";
  c.command = {"python", "train.py"};
  c.args = {"--epochs", "3"};
  c.resources.requests[model::kResourceCpu] = model::Quantity::from_units(2);
  if (gpus > 0) c.resources.limits[model::kResourceGpu] = model::Quantity::from_units(gpus);
  t.spec.containers.push_back(c);
  return t;
}

inline model::ObjectMeta make_meta(std::string name = "job") {
  model::ObjectMeta m;
  m.name = std::move(name);
  m.namespace_ = "ns";
  m.uid = "uid-job";
  return m;
}

struct TypeSpec {
  std::string type;
  std::int32_t replicas = 1;
};

inline model::GenericJob make_generic(std::vector<TypeSpec> types,
                                      RestartPolicyType policy = RestartPolicyType::OnFailure,
                                      std::int32_t limit = 0) {
  model::GenericJob j;
  j.metadata = make_meta();
  for (auto& t : types) {
    model::GenericReplicaSpec r;
    r.type = t.type;
    r.replicas = t.replicas;
    r.restart_policy = {policy, limit};
    r.template_ = make_template();
    j.spec.replica_specs.push_back(r);
  }
  return j;
}

inline model::PyTorchTrainingJob make_pytorch(
    std::vector<TypeSpec> types, RestartPolicyType policy = RestartPolicyType::OnFailure,
    std::int32_t backoff_limit = 3) {
  model::PyTorchTrainingJob j;
  j.metadata = make_meta();
  for (auto& t : types) {
    model::PyTorchReplicaSpec r;
    r.type = t.type;
    r.replicas = t.replicas;
    r.restart_policy = policy;
    r.template_ = make_template(1, "python");
    j.spec.replica_specs.push_back(r);
  }
  j.spec.run_policy.backoff_limit = backoff_limit;
  return j;
}

inline model::DeepSpeedJob make_deepspeed(std::int32_t replicas,
                                          RestartPolicyType policy = RestartPolicyType::OnFailure,
                                          std::int32_t backoff_limit = 3) {
  model::DeepSpeedJob j;
  j.metadata = make_meta();
  j.spec.worker.replicas = replicas;
  j.spec.worker.restart_policy = policy;
  j.spec.worker.template_ = make_template(2, "worker");
  j.spec.run_policy.backoff_limit = backoff_limit;
  return j;
}

inline void use_t9k_scheduler(model::Job& job, std::string queue = "research",
                              std::int32_t priority = 50) {
  std::visit(
      [&](auto& j) {
        j.spec.scheduler.t9k_scheduler = model::T9kScheduler{queue, priority};
      },
      job);
}

// The tiny world. Terminated pods vanish as soon as they are deleted; live pods stay terminating
// until settle() (their grace period).
class World {
 public:
  explicit World(model::Job job) : job(std::move(job)) {}

  model::Job job;
  std::vector<model::Pod> pods;
  std::optional<model::PodGroup> pod_group;
  std::optional<TensorBoardObservation> tensorboard;
  ControllerOptions options;
  Registry registry = make_default_registry();
  SimTime now{};
  std::map<std::string, std::int32_t> next_generation;
  std::vector<RestartTraining> trainings;
  std::int32_t pod_group_creates = 0, pod_group_updates = 0;
  ReconcileResult last;

  const ReconcileResult& step() {
    const model::ObjectMeta& meta = model::metadata_of(job);
    (void)meta;
    const std::string_view kind = model::to_string(model::kind_of(job));
    const Controller* c = registry.find(model::kBatchApiVersion, kind);
    REQUIRE(c != nullptr);
    ReconcileInput in{job, pods, pod_group ? &*pod_group : nullptr, tensorboard, now, options};
    last = c->reconcile(in);
    for (const auto& a : last.actions) apply(a);
    model::status_of(job) = last.status;
    return last;
  }
  const ReconcileResult& step_at(SimDuration t) {
    now = kernel::at(t);
    return step();
  }

  void apply(const Action& a) {
    if (const auto* cp = std::get_if<CreatePod>(&a)) {
      REQUIRE(find(cp->pod.metadata.name.str()) == nullptr);  // a name is never reused while stored
      model::Pod p = cp->pod;
      p.generation = next_generation[p.metadata.name.str()]++;
      p.metadata.uid = p.metadata.name.str() + "-g" + std::to_string(p.generation);
      p.metadata.creation_timestamp = now;
      pods.push_back(std::move(p));
    } else if (const auto* dp = std::get_if<DeletePod>(&a)) {
      auto it = std::find_if(pods.begin(), pods.end(),
                             [&](const auto& p) { return p.metadata.name == dp->name; });
      REQUIRE(it != pods.end());
      if (it->phase == PodPhase::Succeeded || it->phase == PodPhase::Failed) {
        pods.erase(it);
      } else {
        it->deletion_timestamp = now;
        it->deletion_reason = dp->reason;
      }
    } else if (const auto* cg = std::get_if<CreatePodGroup>(&a)) {
      REQUIRE_FALSE(pod_group.has_value());
      pod_group = cg->pod_group;
      ++pod_group_creates;
    } else if (const auto* ug = std::get_if<UpdatePodGroup>(&a)) {
      REQUIRE(pod_group.has_value());
      pod_group = ug->pod_group;
      ++pod_group_updates;
    } else if (std::get_if<CreateTensorBoard>(&a)) {
      tensorboard = TensorBoardObservation{"tb-uid", false};
    } else if (const auto* rt = std::get_if<RestartTraining>(&a)) {
      trainings.push_back(*rt);
    }
  }

  model::Pod* find(const std::string& name) {
    for (auto& p : pods) {
      if (p.metadata.name == name) return &p;
    }
    return nullptr;
  }
  model::Pod& pod(const std::string& name) {
    model::Pod* p = find(name);
    INFO("pod " << name);
    REQUIRE(p != nullptr);
    return *p;
  }
  bool has(const std::string& name) { return find(name) != nullptr; }

  void bind(const std::string& name) { pod(name).node_name = "node-1"; }
  void run(const std::string& name) {
    auto& p = pod(name);
    p.node_name = "node-1";
    p.phase = PodPhase::Running;
    p.start_time = now;
  }
  void run_all() {
    for (auto& p : pods) {
      if (!p.deletion_timestamp && p.phase == PodPhase::Pending) {
        p.node_name = "node-1";
        p.phase = PodPhase::Running;
        p.start_time = now;
      }
    }
  }
  void succeed(const std::string& name) {
    auto& p = pod(name);
    p.phase = PodPhase::Succeeded;
    p.exit_code = 0;
    p.finish_time = now;
  }
  void fail(const std::string& name, std::int32_t code = 1) {
    auto& p = pod(name);
    p.phase = PodPhase::Failed;
    p.exit_code = code;
    p.finish_time = now;
  }
  void unknown(const std::string& name) { pod(name).phase = PodPhase::Unknown; }
  // Deleted by someone else (scheduler preemption, drain): terminating, then gone after settle().
  void evict(const std::string& name, DeletionReason why = DeletionReason::Preemption) {
    auto& p = pod(name);
    p.deletion_timestamp = now;
    p.deletion_reason = why;
  }
  void max_duration(const std::string& name) {  // contract item 5
    auto& p = pod(name);
    p.phase = PodPhase::Failed;
    p.exit_code = 137;
    p.finish_time = now;
    p.deletion_reason = DeletionReason::MaxDuration;
  }
  void settle() {
    std::erase_if(pods, [](const model::Pod& p) { return p.deletion_timestamp.has_value(); });
  }
  // Step and settle until the controller stops creating or deleting (bounded).
  void converge() {
    for (int i = 0; i < 10; ++i) {
      step();
      settle();
      bool changed = false;
      for (const auto& a : last.actions) {
        changed =
            changed || std::holds_alternative<CreatePod>(a) || std::holds_alternative<DeletePod>(a);
      }
      if (!changed) return;
    }
  }

  const model::JobStatus& status() const { return model::status_of(job); }
  JobPhase phase() const {
    REQUIRE(status().phase.has_value());
    return *status().phase;
  }
  const model::JobCondition* condition(JobConditionType t) const {
    for (const auto& c : status().conditions) {
      if (c.type == t) return &c;
    }
    return nullptr;
  }
  const model::JobCondition& cond(JobConditionType t) const {
    const auto* c = condition(t);
    INFO("condition " << model::to_string(t));
    REQUIRE(c != nullptr);
    return *c;
  }
  std::int32_t backoff() const { return status().backoff_count.value_or(-1); }
  std::int32_t task_restarts(const std::string& type) const {
    for (const auto& t : status().tasks) {
      if (t.type == type) return t.restart_count;
    }
    return -1;
  }

  std::vector<DeletePod> deletes() const {
    std::vector<DeletePod> out;
    for (const auto& a : last.actions) {
      if (const auto* d = std::get_if<DeletePod>(&a)) out.push_back(*d);
    }
    return out;
  }
  std::vector<model::Pod> creates() const {
    std::vector<model::Pod> out;
    for (const auto& a : last.actions) {
      if (const auto* c = std::get_if<CreatePod>(&a)) out.push_back(c->pod);
    }
    return out;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& p : pods) out.push_back(p.metadata.name.str());
    std::sort(out.begin(), out.end());
    return out;
  }

  model::GenericJob& generic() { return std::get<model::GenericJob>(job); }
  model::PyTorchTrainingJob& pytorch() { return std::get<model::PyTorchTrainingJob>(job); }
  model::DeepSpeedJob& deepspeed() { return std::get<model::DeepSpeedJob>(job); }

  // Create all pods and get them running: Pending -> Running.
  void start() {
    step();
    run_all();
    step();
  }
};

inline std::int32_t count_reason(const std::vector<DeletePod>& ds, DeletionReason r) {
  return static_cast<std::int32_t>(
      std::count_if(ds.begin(), ds.end(), [&](const DeletePod& d) { return d.reason == r; }));
}

}  // namespace t9k::controllers::testing
