// Property tests: for random pod-event sequences driven through the tiny world, the aggregate
// always partitions the replica slots (§1.3), phases only move along the transition graph (§1.1)
// and terminal phases never change. Randomness comes from a fixed-seed std::mt19937_64 used only
// through its raw output, so the sequences are the same with every standard library.
#include "random_history.hpp"
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
    for (const auto& r : g->spec.replica_specs) out.push_back({r.type.str(), r.replicas});
  } else if (const auto* p = std::get_if<model::PyTorchTrainingJob>(&job)) {
    for (const auto& r : p->spec.replica_specs) out.push_back({r.type, r.replicas});
  } else {
    const auto& d = std::get<model::DeepSpeedJob>(job);
    const auto& e = *d.spec.elastic;
    out.push_back(
        {"worker", std::max(std::clamp(e.expected_replicas, e.min_replicas, e.max_replicas), 1)});
  }
  return out;
}

}  // namespace

TEST_CASE(
    "Property §1.1 §1.3: aggregate partitions the slots, phases follow the graph, terminal is "
    "final") {
  std::set<JobPhase> seen;
  int steps = 0;
  for (int kind = 0; kind < 3; ++kind) {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      std::mt19937_64 rng(seed * 1000 + static_cast<std::uint64_t>(kind));
      World w(make_random_job(kind, rng));
      if (rng() % 2) use_t9k_scheduler(w.job);
      if (rng() % 3 == 0)
        w.options.permanent_failure_scope = ControllerOptions::PermanentFailureScope::MasterOnly;
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
              case model::ReplicaPhase::Creating:
                ++recount.creating;
                break;
              case model::ReplicaPhase::Pending:
                ++recount.pending;
                break;
              case model::ReplicaPhase::Running:
                ++recount.running;
                break;
              case model::ReplicaPhase::Succeeded:
                ++recount.succeeded;
                break;
              case model::ReplicaPhase::Failed:
                ++recount.failed;
                break;
              case model::ReplicaPhase::Unknown:
                ++recount.unknown;
                break;
              case model::ReplicaPhase::Deleted:
                ++recount.deleted;
                break;
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
          for (const auto& r : st.tasks.at(0).replicas)
            REQUIRE(r.restart_count <= w.generic().spec.replica_specs[0].restart_policy.limit);
        }
        // A terminal job creates nothing.
        if (model::is_terminal(phase)) REQUIRE(w.creates().empty());
        prev = phase;
      }
    }
  }
  CHECK(steps == 3 * 60 * 120);
  // The sequences reach every phase the controllers set, so the checks above are exercised.
  for (auto p : {JobPhase::Pending, JobPhase::Running, JobPhase::Paused, JobPhase::Resuming,
                 JobPhase::Succeeded, JobPhase::Failed}) {
    INFO("phase " << model::to_string(p));
    CHECK(seen.count(p) == 1);
  }
}
