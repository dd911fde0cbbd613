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
  static constexpr RestartPolicyType kPolicies[] = {RestartPolicyType::Never, RestartPolicyType::OnFailure,
                                                    RestartPolicyType::Always, RestartPolicyType::ExitCode};
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
    if (pick(3) == 0) std::visit([](auto& j) { j.spec.run_mode.pause.enabled = !j.spec.run_mode.pause.enabled; }, w.job);
    return;
  }
  if (e == 13) {
    if (auto* d = std::get_if<model::DeepSpeedJob>(&w.job)) d->spec.elastic->expected_replicas = pick(6);
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
      if (p.phase == PodPhase::Pending) w.run(p.metadata.name);
      break;
    case 3:
      if (p.phase == PodPhase::Pending) w.bind(p.metadata.name);
      break;
    case 4:
    case 5:
      if (p.phase == PodPhase::Running) w.succeed(p.metadata.name);
      break;
    case 6:
    case 7:
      if (p.phase == PodPhase::Running || p.phase == PodPhase::Unknown) w.fail(p.metadata.name, kCodes[pick(7)]);
      break;
    case 8:
      w.evict(p.metadata.name);
      break;
    case 9:
      if (p.phase == PodPhase::Running) w.unknown(p.metadata.name);
      break;
    default:
      if (p.phase == PodPhase::Running) w.max_duration(p.metadata.name);
      break;
  }
}

}  // namespace t9k::controllers::testing
