// Property tests: for random pod-event sequences driven through the tiny world, the aggregate
// always partitions the replica slots (§1.3), phases only move along the transition graph (§1.1)
// and terminal phases never change. Randomness comes from a fixed-seed std::mt19937_64 used only
// through its raw output, so the sequences are the same with every standard library.
#include "support.hpp"

#include <random>
#include <set>

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;

namespace {

struct Expect {
  std::string type;
  std::int32_t target = 0;
};

// The replica slots the status must partition: desired ranks plus ranks that still have a pod.
std::int32_t expected_slots(const std::vector<Expect>& types, const std::vector<model::Pod>& pods) {
  std::int32_t n = 0;
  for (const auto& t : types) {
    std::set<std::int32_t> ranks;
    for (std::int32_t r = 0; r < t.target; ++r) ranks.insert(r);
    for (const auto& p : pods) {
      if (p.replica_type == t.type) ranks.insert(p.rank);
    }
    n += static_cast<std::int32_t>(ranks.size());
  }
  return n;
}

std::vector<Expect> targets(const model::Job& job) {
  std::vector<Expect> out;
  if (const auto* g = std::get_if<model::GenericJob>(&job)) {
    for (const auto& r : g->spec.replica_specs) out.push_back({r.type, r.replicas});
  } else if (const auto* p = std::get_if<model::PyTorchTrainingJob>(&job)) {
    for (const auto& r : p->spec.replica_specs) out.push_back({r.type, r.replicas});
  } else {
    const auto& d = std::get<model::DeepSpeedJob>(job);
    const auto& e = *d.spec.elastic;
    out.push_back({"worker", std::max(std::clamp(e.expected_replicas, e.min_replicas, e.max_replicas), 1)});
  }
  return out;
}

model::Job make_random_job(int kind, std::mt19937_64& rng) {
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

void random_event(World& w, std::mt19937_64& rng) {
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

}  // namespace

TEST_CASE("Property §1.1 §1.3: aggregate partitions the slots, phases follow the graph, terminal is final") {
  std::set<JobPhase> seen;
  int steps = 0;
  for (int kind = 0; kind < 3; ++kind) {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      std::mt19937_64 rng(seed * 1000 + static_cast<std::uint64_t>(kind));
      World w(make_random_job(kind, rng));
      if (rng() % 2) use_t9k_scheduler(w.job);
      if (rng() % 3 == 0) w.options.permanent_failure_scope = ControllerOptions::PermanentFailureScope::MasterOnly;
      if (rng() % 3 == 0) w.options.max_duration = ControllerOptions::MaxDurationHandling::Recreate;
      std::optional<JobPhase> prev;
      std::optional<std::int32_t> prev_backoff;
      for (int i = 0; i < 120; ++i) {
        random_event(w, rng);
        w.now += seconds(static_cast<std::int64_t>(rng() % 40));
        const auto pods_before = w.pods;
        const auto slots = expected_slots(targets(w.job), pods_before);
        w.step();
        ++steps;
        const auto& st = w.status();
        INFO("kind " << kind << " seed " << seed << " step " << i);
        REQUIRE(st.phase.has_value());
        const JobPhase phase = *st.phase;
        seen.insert(phase);
        REQUIRE(is_allowed_transition(prev, phase));
        if (prev && model::is_terminal(*prev)) REQUIRE(phase == *prev);
        // The aggregate partitions the replica slots and matches the replica statuses.
        REQUIRE(st.aggregate.total() == slots);
        model::Aggregate recount;
        for (const auto& t : st.tasks) {
          for (const auto& r : t.replicas) {
            switch (r.phase) {
              case model::ReplicaPhase::Creating: ++recount.creating; break;
              case model::ReplicaPhase::Pending: ++recount.pending; break;
              case model::ReplicaPhase::Running: ++recount.running; break;
              case model::ReplicaPhase::Succeeded: ++recount.succeeded; break;
              case model::ReplicaPhase::Failed: ++recount.failed; break;
              case model::ReplicaPhase::Unknown: ++recount.unknown; break;
              case model::ReplicaPhase::Deleted: ++recount.deleted; break;
            }
          }
        }
        REQUIRE(recount == st.aggregate);
        // backoffCount never decreases and never passes backoffLimit (§2.3).
        if (kind != 0) {
          REQUIRE(st.backoff_count.has_value());
          if (prev_backoff) REQUIRE(*st.backoff_count >= *prev_backoff);
          const std::int32_t limit = kind == 1 ? w.pytorch().spec.run_policy.backoff_limit
                                               : w.deepspeed().spec.run_policy.backoff_limit;
          REQUIRE(*st.backoff_count <= limit);
          prev_backoff = st.backoff_count;
        } else {
          REQUIRE_FALSE(st.backoff_count.has_value());
          for (const auto& r : st.tasks.at(0).replicas) REQUIRE(r.restart_count <= w.generic().spec.replica_specs[0].restart_policy.limit);
        }
        // A terminal job creates nothing.
        if (model::is_terminal(phase)) REQUIRE(w.creates().empty());
        prev = phase;
      }
    }
  }
  CHECK(steps == 3 * 60 * 120);
  // The sequences reach every phase the controllers set, so the checks above are exercised.
  for (auto p : {JobPhase::Pending, JobPhase::Running, JobPhase::Paused, JobPhase::Resuming, JobPhase::Succeeded,
                 JobPhase::Failed}) {
    INFO("phase " << model::to_string(p));
    CHECK(seen.count(p) == 1);
  }
}
