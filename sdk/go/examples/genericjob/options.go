package genericjob

import "time"

// settings are the scenario's controller options (docs/protocol.md §6.5, meanings in
// docs/controllers.md §3) that a GenericJob's reconcile reads, decoded once per reconcile.
// The options of PyTorchTrainingJob and DeepSpeedJob only (backoffLimitRule,
// exitCodeIgnoresBackoffLimit, permanentFailureScope, elasticSuccess) are not read: a GenericJob
// has no backoffLimit, no master and no elastic training (§3.3).
type settings struct {
	// kubeflowRetryable: retryableExitCodes "kubeflow", every exit code >= 128 is retryable;
	// otherwise the codes of t9kRetryable are (§2.2).
	kubeflowRetryable bool
	t9kRetryable      []int32
	// restartBackoff delays a restart min(backoffCap, backoffBase * 2^(n-1)) after the pod's end
	// (§11 Q5). Whole microseconds, as the simulator counts time.
	restartBackoff bool
	backoffBase    time.Duration
	backoffCap     time.Duration
	// recreateMaxDuration: maxDurationHandling "recreate", a pod stopped by its queue's
	// maxDuration is recreated uncounted; otherwise it has failed for good (§11 Q12).
	recreateMaxDuration bool
	// masterRunning: runningWhen "master-running", the job runs once rank 0 of its first replica
	// type runs; otherwise once every desired replica runs (§11 Q1).
	masterRunning bool
	// perTypeLimit: genericLimitScope "per-type", restartPolicy.limit bounds the type's restarts;
	// otherwise each rank's (§2.3, §11 Q3).
	perTypeLimit bool
}

// The option values that select the alternatives (docs/protocol.md §6.5).
const (
	optionKubeflow      = "kubeflow"
	optionRecreate      = "recreate"
	optionMasterRunning = "master-running"
	optionPerType       = "per-type"
)

// defaultSettings are the simulator's defaults (docs/protocol.md §6.5): the T9k list of
// retryable codes, no back-off (10 s doubling to 6 min when enabled), a maxDuration stop fails
// the replica, Running once all pods run, the limit per replica.
func defaultSettings() settings {
	return settings{
		t9kRetryable: []int32{130, 137, 138, 143},
		backoffBase:  10 * time.Second,
		backoffCap:   6 * time.Minute,
	}
}
