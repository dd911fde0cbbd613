// The kubelet: the pod lifecycle on nodes. A bound pod starts after the pod start latency; a
// deleted one stops within its grace period (the pod stop latency, capped by
// terminationGracePeriodSeconds); pods of a lost node turn Unknown at once and Failed (exit 137)
// after the detection delay (§11 Q13); containers that stop report their phase and exit code to
// the store, and the job's training hears of it. A TensorBoard becomes ready one pod start
// latency after it is created (§9).
//
// Owns: the start/stop latency streams, the pending starts, removals and detections.
// Handles: kPodStarted, kPodGone, kFailureDetected, kTensorBoardReady.
// Offers: PodLifecycle (sim/interfaces.hpp).
// Calls: Store (pod state), TrainingControl (what interrupted it, re-evaluate), ReconcileQueue.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/common.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class Store;

class Kubelet final : public kernel::EventHandler, public PodLifecycle {
 public:
  Kubelet(const scenarios::Scenario& scenario, const WorldSettings& settings,
          kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
          ReconcileQueue& reconciles);
  // Training is built after the kubelet (it calls the kubelet too): connected before the run.
  void connect(TrainingControl& training) { training_ = &training; }

  static constexpr EventKind kKinds[] = {kPodStarted, kPodGone, kFailureDetected,
                                         kTensorBoardReady};
  void handle(const kernel::DispatchedEvent& event) override;

  // PodLifecycle
  void pod_bound(JobId job, const std::string& pod_key, std::int32_t generation) override;
  void pod_running_at_start(JobId job, const std::string& pod_key,
                            std::int32_t generation) override;
  void terminate(JobId job, const std::string& pod_key, model::PodPhase phase,
                 std::int32_t exit_code,
                 std::optional<model::LossCause> cause = std::nullopt) override;
  void delete_pod(JobId job, std::string_view pod_name, model::DeletionReason reason) override;
  void nodes_lost(const std::vector<std::string>& nodes, const std::string& cause) override;
  void create_tensorboard(JobId job) override;

 private:
  struct PodEvent {
    JobId job = 0;
    std::string pod;
    std::int32_t generation = 0;
  };
  void started(const PodEvent& e);
  void gone(const PodEvent& e);
  void detected(const std::vector<std::string>& nodes);
  void remove(JobId job, const std::string& pod_key);

  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  Store& store_;
  TrainingControl* training_ = nullptr;
  ReconcileQueue& reconciles_;
  kernel::Rng rng_start_, rng_stop_;
  kernel::Rng rng_detect_;  // "faults/detection-delay": one draw per failure
  Parked<PodEvent> pod_events_;
  Parked<std::vector<std::string>> detections_;
};

}  // namespace t9k::sim
