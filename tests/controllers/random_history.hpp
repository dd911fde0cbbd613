// Random pod-event histories shared by the property tests and the equivalence tests: a random
// job of kind 0 (GenericJob), 1 (PyTorchTrainingJob) or 2 (elastic DeepSpeedJob) and one random
// event per step. Randomness comes from a fixed-seed std::mt19937_64 used only through its raw
// output, so the sequences are the same with every standard library.
#pragma once

#include <random>

#include "support.hpp"

namespace t9k::controllers::testing {

inline model::Job make_random_job(int kind, std::mt19937_64& rng) {
  const auto pick = [&](std::uint64_t n) { return static_cast<std::int32_t>(rng() % n); };
  static constexpr RestartPolicyType kPolicies[] = {
      RestartPolicyType::Never, RestartPolicyType::OnFailure, RestartPolicyType::Always,
      RestartPolicyType::ExitCode};
  if (kind == 0) {
    auto j = make_generic({{"master", 1}, {"worker", 1 + pick(3)}}, kPolicies[pick(3)], pick(3));
    if (pick(2)) j.spec.success_rules = {model::FinishRule{{{"master", {0}}}}};
    if (pick(2)) j.spec.failure_rules = {model::FinishRule{{{"worker", {0}}}}};
    j.spec.clean_up_policy = static_cast<model::CleanUpPolicy>(pick(3));
    return j;
  }
  if (kind == 1) {
    auto j = make_pytorch({{"master", 1}, {"worker", 1 + pick(3)}}, kPolicies[pick(4)], pick(4));
    j.spec.run_policy.clean_up_policy = static_cast<model::CleanUpPolicy>(pick(3));
    if (pick(3) == 0) j.spec.run_policy.active_deadline_seconds = 200 + pick(2000);
    return j;
  }
  auto j = make_deepspeed(1, kPolicies[pick(4)], pick(4));
  j.spec.elastic = model::ElasticConfig{true, 1, 4, 1 + pick(4)};
  j.spec.run_policy.clean_up_policy = static_cast<model::CleanUpPolicy>(pick(3));
  return j;
}

inline void random_event(World& w, std::mt19937_64& rng) {
  const auto pick = [&](std::uint64_t n) { return static_cast<std::int32_t>(rng() % n); };
  const int e = pick(14);
  if (e == 12) {  // pause or resume, now and then
    if (pick(3) == 0)
      std::visit(
          [](auto& j) { j.spec.run_mode.edit().pause.enabled = !j.spec.run_mode->pause.enabled; },
          w.job);
    return;
  }
  if (e == 13) {
    if (auto* d = std::get_if<model::DeepSpeedJob>(&w.job))
      d->spec.elastic->expected_replicas = pick(6);
    return;
  }
  if (e == 11) {
    w.settle();
    return;
  }
  if (w.pods.empty()) return;
  auto& p = w.pods[static_cast<std::size_t>(pick(w.pods.size()))];
  if (p.deletion_timestamp) return;
  static constexpr std::int32_t kCodes[] = {1, 2, 127, 130, 137, 139, 143};
  switch (e) {
    case 0:
    case 1:
    case 2:
      if (p.phase == PodPhase::Pending) w.run(p.metadata.name.str());
      break;
    case 3:
      if (p.phase == PodPhase::Pending) w.bind(p.metadata.name.str());
      break;
    case 4:
    case 5:
      if (p.phase == PodPhase::Running) w.succeed(p.metadata.name.str());
      break;
    case 6:
    case 7:
      if (p.phase == PodPhase::Running || p.phase == PodPhase::Unknown)
        w.fail(p.metadata.name.str(), kCodes[pick(7)]);
      break;
    case 8:
      w.evict(p.metadata.name.str());
      break;
    case 9:
      if (p.phase == PodPhase::Running) w.unknown(p.metadata.name.str());
      break;
    default:
      if (p.phase == PodPhase::Running) w.max_duration(p.metadata.name.str());
      break;
  }
}

// ---- richer histories (the equivalence and protocol tests) ----

constexpr int kKinds =
    4;  // 0 GenericJob, 1 PyTorchTrainingJob, 2 elastic DeepSpeedJob, 3 elastic PyTorch

// Template details make_pod copies or derives from (labels, annotations, init containers, a
// second container, node selector, scheduler name, priority, grace period).
inline void decorate(model::PodTemplateSpec& t, std::mt19937_64& rng) {
  if (rng() % 2) {
    t.metadata.labels["app"] = "train";
    t.metadata.annotations.edit()["note"] = "x";
  }
  if (rng() % 3 == 0) {
    model::Container init;
    init.name = "init";
    init.image = "busybox";
    init.resources.requests[model::kResourceCpu] = model::Quantity::from_units(4);
    t.spec.init_containers.push_back(init);
  }
  if (rng() % 3 == 0) {
    model::Container side;
    side.name = "sidecar";
    side.image = "busybox";
    side.command = {"sleep"};
    t.spec.containers.insert(t.spec.containers.begin(),
                             side);  // the training container is not first
  }
  if (rng() % 3 == 0) t.spec.node_selector["gpu"] = "a100";
  if (rng() % 3 == 0) t.spec.scheduler_name = "custom-scheduler";
  if (rng() % 3 == 0) t.spec.priority = 7;
  if (rng() % 3 == 0) t.spec.termination_grace_period_seconds = 5;
}

template <class Spec>
void vary_run_mode(Spec& spec, const std::string& type, std::mt19937_64& rng) {
  if (rng() % 8 == 0) {
    spec.run_mode.edit().debug.enabled = true;
    if (rng() % 2)
      spec.run_mode.edit().debug.replica_specs.push_back({type, rng() % 2 == 0, {"bash"}});
  }
  if (rng() % 2)
    spec.run_mode.edit().pause.resume_specs.push_back(
        {type, rng() % 2 == 0, {"resume.sh"}, {"--from", "ckpt"}});
}

inline model::Job make_job(int kind, std::mt19937_64& rng) {
  model::Job job = make_random_job(kind == 3 ? 1 : kind, rng);
  if (auto* g = std::get_if<model::GenericJob>(&job)) {
    for (auto& r : g->spec.replica_specs) decorate(r.template_.edit(), rng);
    vary_run_mode(g->spec, "worker", rng);
  } else if (auto* p = std::get_if<model::PyTorchTrainingJob>(&job)) {
    for (auto& r : p->spec.replica_specs) decorate(r.template_.edit(), rng);
    vary_run_mode(p->spec, "master", rng);
    if (rng() % 3 == 0) p->spec.tensorboard_spec = model::TensorBoardSpec{"tb-image", {"/logs"}};
    if (kind == 3) {
      p->spec.elastic = model::ElasticConfig{true, 1, 5, 1 + static_cast<std::int32_t>(rng() % 5)};
      p->spec.torchrun_config = model::TorchrunConfig{};
      p->spec.torchrun_config->enabled = true;
      p->spec.replica_specs[1].scaling_weight = static_cast<std::int32_t>(rng() % 4);
    }
  } else {
    auto& d = std::get<model::DeepSpeedJob>(job);
    decorate(d.spec.worker.template_.edit(), rng);
    vary_run_mode(d.spec, "worker", rng);
    if (rng() % 3 == 0) d.spec.config->slots_per_worker = 4;
  }
  return job;
}

inline void vary_options(ControllerOptions& o, std::mt19937_64& rng) {
  using O = ControllerOptions;
  if (rng() % 3 == 0) o.retryable_exit_codes = O::RetryableExitCodes::KubeflowAtLeast128;
  if (rng() % 3 == 0) o.backoff_limit_rule = O::BackoffLimitRule::KubeflowReachLimit;
  if (rng() % 4 == 0) o.exit_code_ignores_backoff_limit = true;
  if (rng() % 3 == 0) o.restart_backoff = true;
  if (rng() % 3 == 0) o.permanent_failure_scope = O::PermanentFailureScope::MasterOnly;
  if (rng() % 3 == 0) o.max_duration = O::MaxDurationHandling::Recreate;
  if (rng() % 3 == 0) o.running_when = O::RunningWhen::MasterRunning;
  if (rng() % 3 == 0) o.generic_limit_scope = O::GenericLimitScope::PerType;
  if (rng() % 3 == 0) o.elastic_success = O::ElasticSuccess::AnyReplica;
}

// Spec edits the pod events do not make: the last replica type's count (scale-down leaves pods
// beyond the desired ranks) and the T9k scheduler's priority (both update the PodGroup).
inline void resize_or_requeue(model::Job& job, std::mt19937_64& rng) {
  const auto n = static_cast<std::int32_t>(1 + rng() % 3);
  if (rng() % 2) {
    if (auto* g = std::get_if<model::GenericJob>(&job)) g->spec.replica_specs.back().replicas = n;
    if (auto* p = std::get_if<model::PyTorchTrainingJob>(&job))
      p->spec.replica_specs.back().replicas = n;
    return;
  }
  std::visit(
      [&](auto& j) {
        if (auto& t9k = j.spec.scheduler.t9k_scheduler) t9k->priority = n * 10;
      },
      job);
}

}  // namespace t9k::controllers::testing
