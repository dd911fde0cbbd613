// The policy driver: runs the elastic policy (sim/elastic_policy.hpp) every
// controllers.options.elasticPolicyPeriod from time 0, on an observation of the store, and
// applies its decisions as edits of spec.elastic.expectedReplicas, which the job's controller
// then reconciles (scale up or down, §4.3).
//
// Owns: the policy.
// Handles: kElasticPolicy.
// Calls: Store (reads nodes, queues, jobs; edits expectedReplicas), ReconcileQueue.
#pragma once

#include <memory>

#include "sim/common.hpp"
#include "sim/elastic_policy.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class Store;

class PolicyDriver final : public kernel::EventHandler {
 public:
  PolicyDriver(const scenarios::Scenario& scenario, const WorldSettings& settings, kernel::Kernel& kernel,
               Store& store, ReconcileQueue& reconciles);

  static constexpr EventKind kKinds[] = {kElasticPolicy};
  void handle(const kernel::DispatchedEvent& event) override;

  void start();
  // What the policy sees now.
  ElasticObservation observe() const;

 private:
  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  Store& store_;
  ReconcileQueue& reconciles_;
  std::unique_ptr<ElasticPolicy> policy_;
};

}  // namespace t9k::sim
