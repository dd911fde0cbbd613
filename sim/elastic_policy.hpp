// Elastic policies: how the expectedReplicas of elastic jobs evolve (issue 6 §5). A policy is
// decision code, like a controller: it sees an observation of the cluster and returns the
// expectedReplicas it wants for some jobs; the policy driver (sim/policy_driver.hpp) builds the
// observation, runs the policy periodically and applies its decisions as spec edits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/change.hpp"
#include "sim/kernel/time.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

struct ElasticObservation {
  kernel::SimTime now{};
  // Whole GPUs neither used nor shared on ready, schedulable nodes.
  std::int64_t free_gpus = 0;
  // Jobs with at least one pod waiting for a node, with their queue's priority (0 without one).
  struct Waiting {
    std::int32_t priority = 0;
    model::JobId job = 0;
  };
  std::vector<Waiting> waiting;
  // Elastic jobs the policy may resize, in job id order.
  struct Job {
    model::JobId id = 0;
    std::int32_t priority = 0;  // its queue's
    std::int32_t min = 0, max = 0, expected = 0;
    std::int64_t gpus_per_pod = 0;
  };
  std::vector<Job> jobs;
};

struct ElasticDecision {
  model::JobId job = 0;
  std::int32_t expected_replicas = 0;
  bool operator==(const ElasticDecision&) const = default;
};

class ElasticPolicy {
 public:
  virtual ~ElasticPolicy() = default;
  // Decisions in the order they are to be applied; jobs left out keep their expectedReplicas.
  virtual std::vector<ElasticDecision> decide(const ElasticObservation& observation) const = 0;
};

// Greedy: a job grows toward maxReplicas while whole GPUs are free and nothing of higher or equal
// queue priority waits (jobs in id order take the free GPUs first); it shrinks to minReplicas
// as soon as such work waits.
class GreedyElasticPolicy : public ElasticPolicy {
 public:
  std::vector<ElasticDecision> decide(const ElasticObservation& observation) const override;
};

// The built-in policy of that kind; nullptr for Fixed (expectedReplicas only change by
// operations).
std::unique_ptr<ElasticPolicy> make_elastic_policy(ElasticPolicyKind kind);

}  // namespace t9k::sim
