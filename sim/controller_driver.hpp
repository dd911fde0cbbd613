// The controller driver: runs the job controllers (controllers/, plugins behind
// controllers::Controller) as controller-runtime does. A de-duplicated queue of job ids: a job
// is reconciled one reconcile latency after the first change that enqueues it, and again when
// its requeueAfter elapses; each reconcile's actions are applied in order and its status stored
// (the world's contract, controllers/controller.hpp). It publishes phase changes, and compacts
// a finished job once nothing of it can change.
//
// Owns: the controller registry, the reconcile latency stream, per job its controller, whether
//       a reconcile is pending and the requeue timer.
// Handles: kReconcile, kRequeue.
// Offers: ReconcileQueue (sim/interfaces.hpp).
// Calls: Store (status, pods, PodGroups), PodLifecycle (deletions, TensorBoards), TrainingControl,
//        PolicyTrigger (an elastic job started running or ended).
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "controllers/controller.hpp"
#include "kernel/chunked_pool.hpp"
#include "sim/common.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class Store;
struct StoredJob;

class ControllerDriver final : public kernel::EventHandler, public ReconcileQueue {
 public:
  // `registry`: the controllers by kind (built in, or plugins, sim/plugin_set.hpp).
  ControllerDriver(const scenarios::Scenario& scenario, const WorldSettings& settings,
                   kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
                   controllers::Registry registry = controllers::make_default_registry());
  // The kubelet, training and the policy driver are built after the driver (they enqueue
  // reconciles): connected before the run. Without a policy trigger, no one hears of elastic jobs
  // starting or ending.
  void connect(PodLifecycle& pods, TrainingControl& training, PolicyTrigger* policies = nullptr) {
    pods_ = &pods;
    training_ = &training;
    policies_ = policies;
  }

  static constexpr EventKind kKinds[] = {kReconcile, kRequeue};
  void handle(const kernel::DispatchedEvent& event) override;

  // The controller registered for the kind (apiVersion batch.tensorstack.dev/v1beta1).
  // Throws ScenarioError when there is none.
  const controllers::Controller& controller_for(const model::Job& job) const;
  // A stored job, to be reconciled by `controller` once admitted.
  void add_job(JobId job, const controllers::Controller& controller);
  // ReconcileQueue
  void enqueue(JobId job) override;

 private:
  struct JobControl {
    const controllers::Controller* controller = nullptr;
    bool pending = false;
    kernel::EventHandle requeue_ev;
  };
  controllers::ReconcileInput input_of(const StoredJob& job) const;
  void prepare_instant();
  void reconcile(JobId job);
  void apply(JobId job, controllers::Action& action);
  void phase_changed(JobId job, std::optional<model::JobPhase> before);

  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  Store& store_;
  PodLifecycle* pods_ = nullptr;
  TrainingControl* training_ = nullptr;
  PolicyTrigger* policies_ = nullptr;
  controllers::Registry registry_;
  kernel::Rng rng_reconcile_;
  // By JobId (added only by submissions, between events); in chunks, so growth never holds two
  // arrays at once nor leaves half of one empty (issue 49).
  kernel::ChunkedPool<JobControl, 1024> jobs_;
  // When a controller prepares (a plugin): the jobs whose reconcile is due, by time, in the
  // order their events were posted (the order they dispatch in).
  bool prepares_ = false;
  std::map<SimTime, std::vector<JobId>> due_;
};

}  // namespace t9k::sim
