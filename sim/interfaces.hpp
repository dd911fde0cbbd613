// How the world's rooms talk to each other: the narrow interfaces one component offers the
// others (besides the object store and its watcher, sim/store.hpp). Each is implemented by one
// component; tests give a component fakes of the others (tests/sim/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernel/time.hpp"
#include "model/change.hpp"
#include "model/enums.hpp"

namespace t9k::sim {

using model::JobId;

// The controller driver's de-duplicated reconcile queue (sim/controller_driver.hpp).
class ReconcileQueue {
 public:
  virtual ~ReconcileQueue() = default;
  // Something the job's controller observes changed: reconcile the job after the reconcile
  // latency, unless a reconcile is already pending (or the job is not admitted or compacted).
  virtual void enqueue(JobId job) = 0;
};

// The kubelet: pod lifecycle on nodes (sim/kubelet.hpp).
class PodLifecycle {
 public:
  virtual ~PodLifecycle() = default;
  // The scheduler bound the pod (of this generation): its containers run after the pod start
  // latency, unless it was deleted, failed or recreated meanwhile.
  virtual void pod_bound(JobId job, const std::string& pod_key, std::int32_t generation) = 0;
  // A pod of the initial state (docs/forecast.md), already running at time zero: its containers
  // run now, without a start latency.
  virtual void pod_running_at_start(JobId job, const std::string& pod_key,
                                    std::int32_t generation) {
    pod_bound(job, pod_key, generation);
  }
  // The pod's containers stop with this phase and exit code. `cause`, when given, is what the
  // job's training loses its progress to (a fault, a preemption...); otherwise the exit code says.
  virtual void terminate(JobId job, const std::string& pod_key, model::PodPhase phase,
                         std::int32_t exit_code,
                         std::optional<model::LossCause> cause = std::nullopt) = 0;
  // Graceful deletion (controllers/controller.hpp contract 3): a pod that runs nothing goes at
  // once, a live one after its grace period, holding its resources meanwhile.
  virtual void delete_pod(JobId job, std::string_view pod_name, model::DeletionReason reason) = 0;
  // The nodes failed: their pods turn Unknown now and Failed with 137 after the detection delay.
  virtual void nodes_lost(const std::vector<std::string>& nodes, const std::string& cause) = 0;
  // A controller created the job's TensorBoard: it becomes ready after a pod start latency.
  virtual void create_tensorboard(JobId job) = 0;
};

// What training can tell of a job now (what elastic policies observe).
struct TrainingState {
  std::optional<double> progress;  // work done in [0, 1]; unset: runs until stopped
  bool training = false;           // a segment runs
  // Time since the last checkpoint completed (0 while restarting), while training with
  // checkpoints.
  std::optional<kernel::SimDuration> since_checkpoint;
  std::optional<kernel::SimDuration> checkpoint_interval;
  kernel::SimDuration checkpoint_cost{0};
  kernel::SimDuration rescale_overhead{0};
};

// The training model: what a job's processes do while its pods run (sim/training.hpp).
class TrainingControl {
 public:
  virtual ~TrainingControl() = default;
  // The job's next stop of training is charged to `cause` (blame_if_unset: unless one is set).
  virtual void blame(JobId job, model::LossCause cause) = 0;
  virtual void blame_if_unset(JobId job, model::LossCause cause) = 0;
  // The job's pods or spec changed: start, stop or resize the running segment accordingly.
  virtual void evaluate(JobId job) = 0;
  // A pod's containers started running: its scripted run, or its rerun of finished work, begins.
  virtual void pod_started(JobId job, const std::string& pod_key) = 0;
  // An elastic membership change restarts the processes (RestartTraining, §4.3).
  virtual void restart(JobId job) = 0;
  // The job reached a terminal phase: training stops; its remaining training pods lose their
  // peers and exit after the orphan timeout.
  virtual void job_finished(JobId job) = 0;
  // The job was compacted: what training kept for it is no longer needed.
  virtual void forget(JobId job) = 0;
  virtual TrainingState state(JobId job) const = 0;
  // Relative throughput of `n` replicas of the job (its scaling model).
  virtual double speedup(JobId job, std::int32_t n) const = 0;
};

// The policy driver's trigger (sim/policy_driver.hpp).
class PolicyTrigger {
 public:
  virtual ~PolicyTrigger() = default;
  // An elastic job started running or ended: the elastic policy decides now.
  virtual void elastic_job_changed(JobId job) = 0;
};

// Why jobs wait for nodes (offered by the scheduling driver, read by the policy driver).
class WaitReasons {
 public:
  virtual ~WaitReasons() = default;
  // The cause the scheduler last gave for the job while none of its pods is bound; none when it
  // has not tried it yet or the job has pods bound.
  virtual std::optional<model::PendingCause> pending_cause(JobId job) const = 0;
};

// The scheduling driver's cycle trigger (sim/scheduling_driver.hpp).
class CycleTrigger {
 public:
  virtual ~CycleTrigger() = default;
  // Something could now be placed (capacity returned, a queue opened...): run a scheduling cycle
  // one scheduling latency from now, unless one is pending.
  virtual void request_cycle() = 0;
};

}  // namespace t9k::sim
