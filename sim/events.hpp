// Every kind of event the world schedules, the component that owns (handles) it, and the phases
// that order events of one instant. The kind and key of every dispatched event are folded into
// the run's fingerprint, so these numbers are part of the output format: never renumber them.
#pragma once

#include "kernel/event_queue.hpp"

namespace t9k::sim {

enum EventKind : kernel::EventKind {
  kSubmit = 1,       // Submissions     key: hash of the job key
  kReconcile,        // ControllerDriver key: job id
  kRequeue,          // ControllerDriver key: job id (requeueAfter elapsed)
  kCycle,            // SchedulingDriver key: 0 after changes, 1 at a maxDuration expiry
  kPodStarted,       // Kubelet         key: hash of the pod key
  kPodGone,          // Kubelet         key: hash of the pod key (grace period over)
  kTrainingDone,     // Training        key: job id
  kSoftwareFailure,  // Training        key: job id
  kNodeFailure,      // Cluster         key: hash of the node name
  kSwitchFailure,    // Cluster         key: hash of the switch name
  kFailureDetected,  // Kubelet         key: hash of the fault cause (Unknown -> Failed)
  kRepair,         // Cluster         key: hash of the node (GPU) or of the cause + 1 (node, switch)
  kOperation,      // Operations      key: index in spec.operations
  kOrphan,         // Training        key: job id (peers gone: rendezvous timeout)
  kElasticPolicy,  // PolicyDriver    key: 0 periodic, 1 asked for (job start/end, policy)
  kTensorBoardReady,  // Kubelet         key: job id
  kPodRunEnd,         // Training        key: hash of the pod key (a scripted run or a rerun ends)
  kStranded,          // Training        key: job id (a member failed for good: rendezvous timeout)
  kEventKinds,
};

// Same-instant order: infrastructure first, then the kubelet, the workload, scenario operations
// and submissions, controllers and last the scheduler, which so sees every change of the instant.
enum EventPhase : kernel::Phase {
  kPhaseFault = 0,
  kPhaseKubelet = 1,
  kPhaseWorkload = 2,
  kPhaseOps = 3,
  kPhaseController = 4,
  kPhaseScheduler = 5,
};

}  // namespace t9k::sim
