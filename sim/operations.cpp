#include "sim/operations.hpp"

#include <fmt/format.h>

#include "sim/cluster.hpp"
#include "sim/settings.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

Operations::Operations(const scenarios::Scenario& scenario, kernel::Kernel& kernel, Store& store, Cluster& cluster,
                       TrainingControl& training, ReconcileQueue& reconciles, CycleTrigger& cycles)
    : sc_(scenario),
      k_(kernel),
      store_(store),
      cluster_(cluster),
      training_(training),
      reconciles_(reconciles),
      cycles_(cycles) {}

void Operations::start() {
  for (std::size_t i = 0; i < sc_.operations.size(); ++i) k_.post_at(sc_.operations[i].at, kPhaseOps, kOperation, i);
}

void Operations::handle(const kernel::DispatchedEvent& e) {
  if (e.kind == kOperation) apply(sc_.operations.at(e.key));
}

JobId Operations::need_job(const scenarios::Operation& op) const {
  const StoredJob* j = store_.find_job(op.target);
  if (!j) {
    throw ScenarioError(fmt::format("operation {} at {}: no job named '{}'", scenarios::to_string(op.type),
                                    kernel::format_seconds(op.at), op.target));
  }
  return j->id;
}

void Operations::need_node(const scenarios::Operation& op) const {
  if (!store_.node(op.target)) {
    throw ScenarioError(fmt::format("operation {}: no node named '{}'", scenarios::to_string(op.type), op.target));
  }
}

void Operations::apply(const scenarios::Operation& op) {
  using T = scenarios::OperationType;
  switch (op.type) {
    case T::PauseJob:
    case T::ResumeJob: {
      const JobId id = need_job(op);
      store_.set_paused(id, op.type == T::PauseJob);
      if (op.type == T::PauseJob) training_.blame(id, model::LossCause::Pause);
      reconciles_.enqueue(id);
      training_.evaluate(id);
      break;
    }
    case T::SetExpectedReplicas: {
      const JobId id = need_job(op);
      store_.set_expected_replicas(id, *op.expected_replicas);
      reconciles_.enqueue(id);
      break;
    }
    case T::CloseQueue:
    case T::OpenQueue: {
      if (!store_.queue(op.target)) throw ScenarioError("operation on unknown queue " + op.target);
      store_.set_queue_closed(op.target, op.type == T::CloseQueue);
      cycles_.request_cycle();
      break;
    }
    case T::DrainNode:
      need_node(op);
      cluster_.drain(op.target, "drain");
      break;
    case T::CordonNode:
    case T::UncordonNode:
      need_node(op);
      cluster_.cordon(op.target, op.type == T::CordonNode);
      break;
    case T::AddNodePool: cluster_.add_pool(*op.node_pool); break;
    case T::RemoveNodePool: cluster_.remove_pool(op.target); break;
  }
}

}  // namespace t9k::sim
