#include "sim/kubelet.hpp"

#include <set>

#include "kernel/hash.hpp"
#include "scheduler/snapshot.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

using model::LossCause;
using model::PodPhase;

namespace {

// What a job's training loses to when one of its running pods is deleted for this reason.
LossCause cause_of(model::DeletionReason r) {
  switch (r) {
    case model::DeletionReason::Preemption:
      return LossCause::Preemption;
    case model::DeletionReason::Pause:
      return LossCause::Pause;
    case model::DeletionReason::ScaleDown:
      return LossCause::Scale;
    case model::DeletionReason::MaxDuration:
      return LossCause::MaxDuration;
    case model::DeletionReason::NodeFailure:
      return LossCause::Fault;
    default:
      return LossCause::Other;
  }
}

}  // namespace

Kubelet::Kubelet(const scenarios::Scenario& scenario, const WorldSettings& settings,
                 kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
                 ReconcileQueue& reconciles)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      store_(store),
      reconciles_(reconciles),
      rng_start_(streams.stream("kubelet/start-latency")),
      rng_stop_(streams.stream("kubelet/stop-latency")),
      rng_detect_(streams.stream("faults/detection-delay")) {}

void Kubelet::handle(const kernel::DispatchedEvent& e) {
  switch (e.kind) {
    case kPodStarted:
      started(pod_events_.take(e.arg));
      break;
    case kPodGone:
      gone(pod_events_.take(e.arg));
      break;
    case kFailureDetected:
      detected(detections_.take(e.arg));
      break;
    case kTensorBoardReady: {
      const auto id = static_cast<JobId>(e.key);
      store_.set_tensorboard_ready(id);
      reconciles_.enqueue(id);
      break;
    }
    default:
      break;
  }
}

void Kubelet::pod_bound(JobId job, const std::string& key, std::int32_t gen) {
  k_.post_in(sc_.kubelet.pod_start_latency.draw(rng_start_), kPhaseKubelet, kPodStarted,
             kernel::hash_string(key), pod_events_.park(PodEvent{job, key, gen}));
}

void Kubelet::pod_running_at_start(JobId job, const std::string& key, std::int32_t gen) {
  k_.post_in(SimDuration{0}, kPhaseKubelet, kPodStarted, kernel::hash_string(key),
             pod_events_.park(PodEvent{job, key, gen}));
}

void Kubelet::started(const PodEvent& e) {
  const model::Pod* p = store_.pod(e.pod);
  // A pod deleted, failed or recreated under the same name meanwhile does not start.
  if (!p || p->generation != e.generation || p->phase != PodPhase::Pending || p->deletion_timestamp)
    return;
  store_.set_pod_running(e.job, e.pod);
  reconciles_.enqueue(e.job);
  training_->pod_started(e.job, e.pod);
  training_->evaluate(e.job);
}

void Kubelet::terminate(JobId job, const std::string& key, PodPhase phase, std::int32_t exit_code,
                        std::optional<LossCause> cause) {
  if (cause) training_->blame(job, *cause);
  if (!store_.terminate_pod(job, key, phase, exit_code)) return;
  training_->blame_if_unset(job, exit_code == 0 ? LossCause::Other : LossCause::Software);
  training_->evaluate(job);
}

void Kubelet::remove(JobId job, const std::string& key) {
  store_.remove_pod(job, key);
  training_->evaluate(job);
}

void Kubelet::delete_pod(JobId job, std::string_view name, model::DeletionReason reason) {
  const model::Pod* p = store_.pod_named(job, name);
  if (!p || p->deletion_timestamp) return;
  const std::string key = scheduler::object_key(p->metadata);
  p = &store_.mark_deleted(job, key, reason);
  if (terminated(*p) || p->node_name.empty()) {
    remove(job, key);  // nothing runs: gone at once
    reconciles_.enqueue(job);
    return;
  }
  training_->blame_if_unset(job, cause_of(reason));
  store_.set_terminating(job, key);  // still holds its resources
  training_->evaluate(job);
  SimDuration stop = sc_.kubelet.pod_stop_latency.draw(rng_stop_);
  stop = std::min(stop, kernel::seconds(p->termination_grace_period_seconds));
  k_.post_in(stop, kPhaseKubelet, kPodGone, kernel::hash_string(key),
             pod_events_.park(PodEvent{job, key, p->generation}));
}

void Kubelet::gone(const PodEvent& e) {
  const model::Pod* p = store_.pod(e.pod);
  if (!p || p->generation != e.generation) return;
  remove(e.job, e.pod);
  reconciles_.enqueue(e.job);
}

void Kubelet::nodes_lost(const std::vector<std::string>& nodes, const std::string& cause) {
  std::set<JobId> touched;
  for (const auto& name : nodes) {
    for (const auto& key : store_.pods_on(name)) {
      const auto [job, p] = store_.locate(key);
      if (terminated(*p) || p->phase == PodPhase::Unknown) continue;
      store_.set_pod_unknown(job, key);
      store_.publish(model::PodUnknown{job, key, name});
      training_->blame(job, LossCause::Fault);
      touched.insert(job);
    }
  }
  for (JobId id : touched) {
    training_->evaluate(id);
    reconciles_.enqueue(id);
  }
  // One delay per failure: the pods of all nodes it took down are detected together.
  const SimDuration delay = sc_.faults.detection_delay
                                ? sc_.faults.detection_delay->draw(rng_detect_)
                                : st_.detection_delay;
  k_.post_in(delay, kPhaseFault, kFailureDetected, kernel::hash_string(cause),
             detections_.park(nodes));
}

void Kubelet::detected(const std::vector<std::string>& nodes) {
  for (const auto& name : nodes) {
    const std::vector<std::string> keys = store_.pods_on(name);
    for (const auto& key : keys) {
      const auto [job, p] = store_.locate(key);
      if (p->phase != PodPhase::Unknown) continue;
      terminate(job, key, PodPhase::Failed, 137);
      reconciles_.enqueue(job);
    }
  }
}

void Kubelet::create_tensorboard(JobId job) {
  if (!store_.create_tensorboard(job)) return;
  // [INFERRED] a TensorBoard is ready after its pod starts (§9): one pod start latency.
  k_.post_in(sc_.kubelet.pod_start_latency.draw(rng_start_), kPhaseKubelet, kTensorBoardReady, job);
}

}  // namespace t9k::sim
