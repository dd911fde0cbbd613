// Elastic policies: who sets the expectedReplicas of elastic jobs (issue 6 §5, issue 14). A
// policy is decision code, like a controller: it sees an observation of the cluster and answers
// the expectedReplicas it wants for some jobs, and when it wants to decide next. It never reads
// a clock or keeps state between calls (what it needs of the past, such as when a job was last
// resized, is in the observation). The world's policy driver (sim/policy_driver.hpp) builds the
// observation, calls the policy and applies its answer; a policy may also run in another
// process (docs/plugins.md, method `decide`).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/time.hpp"
#include "model/change.hpp"
#include "model/meta.hpp"

namespace t9k::policies {

using kernel::SimDuration;
using kernel::SimTime;
using model::JobId;

// What a policy sees. Policies built in read only the fields of the plugin protocol's version 1
// (marked v1), so that `t9ksim plugin serve elastic-policy --protocol 1` stays exact
// (docs/protocol-v2.md); the others are for richer policies (plugins speak version 2).
struct ElasticObservation {
  SimTime now{};
  // Whole GPUs neither used nor shared on ready, schedulable nodes (v1).
  std::int64_t free_gpus = 0;
  // Fragmentation: [k] = ready, schedulable nodes with exactly k whole free GPUs, k = 0 .. the
  // most GPUs any node has.
  std::vector<std::int32_t> free_gpus_per_node;

  struct Demand {
    std::int32_t job_priority = 0;  // the waiting jobs' priority within their queue (v1)
    std::int64_t gpu_milli = 0;     // what their waiting pods request (v1)
    std::int32_t jobs = 0;          // (v1)
    bool operator==(const Demand&) const = default;
  };
  struct Queue {
    std::string name;                             // (v1)
    std::int32_t priority = 0;                    // the queue's own priority (v1)
    std::optional<std::int64_t> quota_gpu_milli;  // spec.quota nvidia.com/gpu; unset: no quota (v1)
    std::int64_t allocated_gpu_milli = 0;         // what its bound pods hold (v1)
    std::vector<Demand> pending;                  // by job priority, highest first (v1)
    bool operator==(const Queue&) const = default;
  };
  std::vector<Queue> queues;  // by name

  // Jobs with at least one live pod waiting for a node, in job id order.
  struct Waiting {
    std::int32_t queue_priority = 0;  // its queue's priority, 0 without a queue (v1)
    JobId job = 0;                    // (v1)
    std::string name;                 // namespace/name
    std::string queue;                // empty for the default scheduler
    std::int32_t job_priority = 0;    // t9kScheduler.priority
    bool elastic = false;
    std::int32_t waiting_pods = 0;
    // Of those, the pods an elastic job with pods bound runs without (it grew).
    std::int32_t growth_pods = 0;
    model::ResourceList demand;  // what the waiting pods request, summed
    std::int64_t gpu_milli = 0;
    SimTime waiting_since{};  // the creation time of its oldest waiting pod
    // Why the scheduler last left it waiting, while none of its pods is bound.
    std::optional<model::PendingCause> pending_cause;
    bool operator==(const Waiting&) const = default;
  };
  std::vector<Waiting> waiting;

  // Elastic jobs the policy may resize (submitted, not finished), in job id order. All v1 but
  // job_priority and waiting_pods.
  struct Job {
    JobId id = 0;
    std::string name;                 // namespace/name
    std::string queue;                // empty for the default scheduler
    std::int32_t queue_priority = 0;  // its queue's priority
    std::int32_t job_priority = 0;    // t9kScheduler.priority
    std::int32_t min = 0, max = 0, expected = 0;
    std::int32_t running_pods = 0;
    std::int32_t waiting_pods = 0;  // live, not yet bound
    std::int64_t gpus_per_pod = 0;
    double scaling_weight = 1;  // spec.replicaSpecs[0].scalingWeight (unset: 1, §11 Q8)
    // Relative throughput by replica count: speedup[n - 1] for n = 1..max (the job's scaling
    // model, docs/simulation-model.md).
    std::vector<double> speedup;
    std::optional<double> progress;               // work done, in [0, 1]; unset: runs until stopped
    bool training = false;                        // a training segment runs now
    std::optional<SimDuration> since_checkpoint;  // while training with checkpoints
    std::optional<SimDuration> checkpoint_interval;  // unset: never checkpoints
    SimDuration checkpoint_cost{0};
    SimDuration rescale_overhead{0};
    std::optional<SimTime> last_resize;  // when a policy last changed its expectedReplicas
    bool operator==(const Job&) const = default;
  };
  std::vector<Job> jobs;
  bool operator==(const ElasticObservation&) const = default;
};

struct ElasticDecision {
  JobId job = 0;
  std::int32_t expected_replicas = 0;
  bool operator==(const ElasticDecision&) const = default;
};

struct ElasticDecisions {
  std::vector<ElasticDecision> decisions;  // applied in order; jobs left out keep their value
  std::optional<SimTime> next;             // decide again then (else after the policy period)
  bool operator==(const ElasticDecisions&) const = default;
};

// Settings of the built-in policies (controllers.options, docs/simulation-model.md).
struct PolicyOptions {
  SimDuration cooldown{0};  // a job is not resized again sooner than this after a resize
  // checkpoint-aligned: a job is resized only this soon after a checkpoint completed.
  SimDuration checkpoint_window = kernel::minutes(2);
};

class ElasticPolicy {
 public:
  virtual ~ElasticPolicy() = default;
  virtual std::string_view name() const = 0;
  // False for a policy that never changes anything (fixed): the driver then never calls it.
  virtual bool decides() const { return true; }
  // True when it reads the observation's fields beyond version 1 (ElasticObservation): the world
  // computes them only then, as they cost time with deep queues. The built-in policies do not.
  virtual bool wants_details() const { return false; }
  virtual ElasticDecisions decide(const ElasticObservation& observation) const = 0;
};

// fixed: expectedReplicas change only by operations.
class FixedPolicy : public ElasticPolicy {
 public:
  std::string_view name() const override { return "fixed"; }
  bool decides() const override { return false; }
  ElasticDecisions decide(const ElasticObservation&) const override { return {}; }
};

// greedy: a job grows toward maxReplicas while whole GPUs are free, its queue's quota has room
// and nothing of higher or equal queue priority waits (jobs in id order take the free GPUs
// first); it shrinks to minReplicas as soon as such work waits. A job resized less than
// `cooldown` ago is left alone.
class GreedyPolicy : public ElasticPolicy {
 public:
  explicit GreedyPolicy(PolicyOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "greedy"; }
  ElasticDecisions decide(const ElasticObservation& observation) const override;

 protected:
  PolicyOptions options_;
};

// checkpoint-aligned: greedy's decisions, applied to a job only within `checkpoint_window` after
// one of its checkpoints completed (a rescale then loses almost no work); the policy asks to
// decide again when the next checkpoint of a job it wants to resize completes.
class CheckpointAlignedPolicy : public GreedyPolicy {
 public:
  using GreedyPolicy::GreedyPolicy;
  std::string_view name() const override { return "checkpoint-aligned"; }
  ElasticDecisions decide(const ElasticObservation& observation) const override;
};

// goodput: free GPUs go one pod at a time to the job with the best marginal speed-up per GPU
// (scalingWeight × (speedup(n+1) − speedup(n)) / GPUs per pod), within quotas; jobs shrink to
// minReplicas under pressure as with greedy; cooldown as greedy.
class GoodputPolicy : public GreedyPolicy {
 public:
  using GreedyPolicy::GreedyPolicy;
  std::string_view name() const override { return "goodput"; }
  ElasticDecisions decide(const ElasticObservation& observation) const override;
};

// The built-in policy of that name ("fixed", "greedy", "checkpoint-aligned", "goodput"), or
// nullptr for an unknown name.
std::unique_ptr<ElasticPolicy> make_elastic_policy(std::string_view name,
                                                   PolicyOptions options = {});
std::vector<std::string_view> elastic_policy_names();

}  // namespace t9k::policies
