#include "sim/operations.hpp"

#include <fmt/format.h>

#include "scheduler/snapshot.hpp"
#include "sim/cluster.hpp"
#include "sim/settings.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

Operations::Operations(const scenarios::Scenario& scenario, kernel::Kernel& kernel, Store& store,
                       Cluster& cluster, PodLifecycle& pods, TrainingControl& training,
                       ReconcileQueue& reconciles, CycleTrigger& cycles)
    : sc_(scenario),
      k_(kernel),
      store_(store),
      cluster_(cluster),
      pods_(pods),
      training_(training),
      reconciles_(reconciles),
      cycles_(cycles) {}

void Operations::start() {
  for (std::size_t i = 0; i < sc_.operations.size(); ++i)
    k_.post_at(sc_.operations[i].at, kPhaseOps, kOperation, i);
}

void Operations::handle(const kernel::DispatchedEvent& e) {
  if (e.kind == kOperation) apply(sc_.operations.at(e.key));
}

JobId Operations::need_job(const scenarios::Operation& op) const {
  const auto id = store_.find_job_id(op.target);  // a finished job too: its edits change nothing
  if (!id) {
    throw ScenarioError(fmt::format("operation {} at {}: no job named '{}'",
                                    scenarios::to_string(op.type), kernel::format_seconds(op.at),
                                    op.target));
  }
  return *id;
}

void Operations::need_node(const scenarios::Operation& op) const {
  if (!store_.node(op.target)) {
    throw ScenarioError(
        fmt::format("operation {}: no node named '{}'", scenarios::to_string(op.type), op.target));
  }
}

const model::Pod& Operations::need_pod(const scenarios::Operation& op, JobId job,
                                       bool running) const {
  const model::Pod* found = nullptr;
  for (const auto& p : store_.job(job).pods) {
    if (p.replica_type == op.replica_type && p.rank == op.rank && live(p)) found = &p;
  }
  const auto where = fmt::format("operation {} at {}: job {}", scenarios::to_string(op.type),
                                 kernel::format_seconds(op.at), op.target);
  if (!found)
    throw ScenarioError(
        fmt::format("{} has no live pod of {} rank {}", where, op.replica_type, op.rank));
  if (running && found->phase != model::PodPhase::Running) {
    throw ScenarioError(fmt::format("{}: pod {} is {}, not Running; allowed: a time when it runs",
                                    where, found->metadata.name, model::to_string(found->phase)));
  }
  return *found;
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
    case T::FailPod: {
      const JobId id = need_job(op);
      const model::Pod& p = need_pod(op, id, true);
      // The container exits: the kubelet path of a software failure (its cause: the job's code).
      pods_.terminate(id, scheduler::object_key(p.metadata), model::PodPhase::Failed, op.exit_code,
                      model::LossCause::Software);
      reconciles_.enqueue(id);
      break;
    }
    case T::DeletePod: {
      const JobId id = need_job(op);
      const model::Pod& p = need_pod(op, id, false);
      pods_.delete_pod(id, p.metadata.name, model::DeletionReason::User);
      reconciles_.enqueue(id);
      break;
    }
    case T::FailNode:
      need_node(op);
      cluster_.fail_node(op.target, op.repair_after);
      break;
    case T::RepairNode:
      need_node(op);
      cluster_.repair_node(op.target);
      break;
    case T::FailGpu:
      need_node(op);
      cluster_.fail_gpu(op.target, op.repair_after);
      break;
    case T::FailSwitch:
      if (!cluster_.fail_switch(op.target, op.repair_after)) {
        throw ScenarioError(
            fmt::format("operation failSwitch: no switch named '{}' (switches are switch-<n>, "
                        "from cluster.topology)",
                        op.target));
      }
      break;
    case T::SetQueue: {
      const model::Queue* q = store_.queue(op.target);
      if (!q) throw ScenarioError("operation on unknown queue " + op.target);
      model::QueueSpec spec = q->spec;
      const auto& e = *op.queue_edit;
      if (e.quota) spec.quota = *e.quota;
      if (e.priority) spec.priority = *e.priority;
      if (e.preemptible) spec.preemptible = *e.preemptible;
      if (e.closed) spec.closed = *e.closed;
      if (e.max_duration) {
        spec.max_duration = kernel::parse_max_duration(*e.max_duration);  // checked at load
        spec.max_duration_text = *e.max_duration;
      }
      store_.set_queue_spec(op.target, std::move(spec));
      cycles_.request_cycle();
      break;
    }
    case T::SetJobPriority: {
      const JobId id = need_job(op);
      store_.set_job_priority(id, op.priority);
      reconciles_.enqueue(id);  // its controller updates the PodGroup (§8.3)
      break;
    }
    case T::AddNodePool:
      cluster_.add_pool(*op.node_pool);
      break;
    case T::RemoveNodePool:
      cluster_.remove_pool(op.target);
      break;
  }
}

}  // namespace t9k::sim
