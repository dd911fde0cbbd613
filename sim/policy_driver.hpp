// The policy driver: runs the elastic policy (policies/elastic.hpp, built in or a plugin) on an
// observation of the world, and applies its decisions as edits of spec.elastic.expectedReplicas,
// which the job's controller then reconciles (scale up or down, §4.3). It decides every
// controllers.options.elasticPolicyPeriod from time 0, when an elastic job starts running or
// ends, and when the policy asks to decide again at a given time. A decision for a job the
// policy may not resize, or outside [minReplicas, maxReplicas], stops the run with an error.
//
// Owns: the policy; when it last resized each job.
// Handles: kElasticPolicy.
// Offers: PolicyTrigger (sim/interfaces.hpp).
// Calls: Store (reads nodes, queues, jobs; edits expectedReplicas), TrainingControl (progress,
//        checkpoints, scaling), ReconcileQueue.
#pragma once

#include <map>
#include <memory>

#include "policies/elastic.hpp"
#include "sim/common.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class Store;
struct StoredJob;

// A policy answered something the world cannot apply.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PolicyDriver final : public kernel::EventHandler, public PolicyTrigger {
 public:
  // `policy` null: the built-in policy the settings name.
  // `reasons`: why jobs wait (the scheduling driver), for observations with details.
  PolicyDriver(const scenarios::Scenario& scenario, const WorldSettings& settings,
               kernel::Kernel& kernel, Store& store, const TrainingControl& training,
               ReconcileQueue& reconciles,
               std::unique_ptr<policies::ElasticPolicy> policy = nullptr,
               const WaitReasons* reasons = nullptr);

  static constexpr EventKind kKinds[] = {kElasticPolicy};
  void handle(const kernel::DispatchedEvent& event) override;

  void start();
  // What the policy sees now; `details`: with the fields beyond protocol version 1 too.
  policies::ElasticObservation observe(bool details = true) const;
  // PolicyTrigger
  void elastic_job_changed(JobId job) override;

 private:
  void decide();
  policies::ElasticObservation::Job elastic_job(JobId id, const StoredJob& j,
                                                std::int32_t queue_priority, bool details) const;
  void ask_at(SimTime t);

  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  Store& store_;
  const TrainingControl& training_;
  ReconcileQueue& reconciles_;
  std::unique_ptr<policies::ElasticPolicy> policy_;
  const WaitReasons* reasons_;
  std::map<JobId, SimTime> last_resize_;
  kernel::EventHandle asked_ev_;  // a decision the policy asked for, or a job's start or end
  SimTime asked_at_ = kernel::kTimeMax;
};

}  // namespace t9k::sim
