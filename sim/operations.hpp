// Scenario operations (spec.operations): what an administrator or a user does at a given time,
// applied as they would through the API: pause or resume a job (spec.runMode.pause), set an
// elastic job's expectedReplicas, close or open a queue, drain, cordon or uncordon a node, add
// or remove a node pool; and what goes wrong, scripted: a pod fails or is deleted, a node, GPU
// or switch fails (and a node is repaired), a queue or a job's priority is edited.
//
// Owns: nothing but the schedule of the scenario's operations.
// Handles: kOperation.
// Calls: Store (spec edits, queues), Cluster (node operations, scripted faults), PodLifecycle
//        (pods fail or are deleted), TrainingControl (pause: what the stop is charged to),
//        ReconcileQueue, CycleTrigger.
#pragma once

#include "sim/common.hpp"
#include "sim/interfaces.hpp"

namespace t9k::sim {

class Store;
class Cluster;

class Operations final : public kernel::EventHandler {
 public:
  Operations(const scenarios::Scenario& scenario, kernel::Kernel& kernel, Store& store,
             Cluster& cluster, PodLifecycle& pods, TrainingControl& training,
             ReconcileQueue& reconciles, CycleTrigger& cycles);

  static constexpr EventKind kKinds[] = {kOperation};
  void handle(const kernel::DispatchedEvent& event) override;

  // Schedules every operation of the scenario at its time.
  void start();
  // Applies one operation now. Throws ScenarioError naming an unknown job, queue or node.
  void apply(const scenarios::Operation& op);

 private:
  JobId need_job(const scenarios::Operation& op) const;
  void need_node(const scenarios::Operation& op) const;
  // The live pod of the operation's replica type and rank; throws ScenarioError when there is
  // none (or, `running`, when it is not running).
  const model::Pod& need_pod(const scenarios::Operation& op, JobId job, bool running) const;

  const scenarios::Scenario& sc_;
  kernel::Kernel& k_;
  Store& store_;
  Cluster& cluster_;
  PodLifecycle& pods_;
  TrainingControl& training_;
  ReconcileQueue& reconciles_;
  CycleTrigger& cycles_;
};

}  // namespace t9k::sim
