package v1beta1

// Types shared by the three job kinds: scheduling, run mode, run policy, elastic scaling and
// restart policies. Each is defined once although several pages describe it.

// SchedulePolicy signals to K8s how the job should be scheduled. Absent: the Kubernetes default
// scheduler. (The PyTorchTrainingJob reference page calls it SchedulerPolicy.)
type SchedulePolicy struct {
	// T9k Scheduler.
	// +optional
	T9kScheduler *T9kScheduler `json:"t9kScheduler,omitempty"`
}

// T9kScheduler provides additional configurations needed for the scheduling process: the
// PodGroup the job's controller creates.
type T9kScheduler struct {
	// Specifies the name of the queue that should be used for running this workload. Required by
	// the reference page; the simulator reads an absent queue as "default".
	// +optional
	Queue string `json:"queue,omitempty"`

	// Indicates the priority of the PodGroup; valid range: [0, 100]. Optional: defaults to 0
	// (API page; the older reference page says 10, the simulator follows the API page).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	Priority *int32 `json:"priority,omitempty"`
}

// RunMode defines the job's execution behavior.
//
// Immediate mode: (default) tasks are executed immediately upon submission. Debug mode: job
// pods are created, but regular executions are replaced with null operations (e.g. sleep) for
// convenient debugging. Pause mode: job execution is halted, and pods are deleted to reclaim
// resources.
type RunMode struct {
	// Debug mode.
	// +optional
	Debug *DebugMode `json:"debug,omitempty"`

	// Pause mode.
	// +optional
	Pause *PauseMode `json:"pause,omitempty"`
}

// DebugMode configs whether and how to start a job in debug mode.
type DebugMode struct {
	// Whether to enable debug mode. The older reference page spells it "enable"; the API pages,
	// every published manifest and the simulator's writer use "enabled" (the simulator reads
	// "enable" too, with a warning; these types do not).
	Enabled bool `json:"enabled"`

	// If provided, these specs provide overwriting values for job replicas.
	// +optional
	ReplicaSpecs []ReplicaDebugSet `json:"replicaSpecs,omitzero"`
}

// ReplicaDebugSet describes how to start replicas in debug mode.
type ReplicaDebugSet struct {
	// Replica type.
	Type string `json:"type"`

	// Skips creation of initContainer, if true.
	// +optional
	SkipInitContainer bool `json:"skipInitContainer,omitempty"`

	// Entrypoint array. Optional: defaults to ["sleep", "inf"] (DeepSpeedJob: the sshd command).
	// The GenericJob page prints the type as "string"; the reference page, the manifests and the
	// simulator use a list of strings.
	// +optional
	Command []string `json:"command,omitzero"`
}

// PauseMode configs whether and how to start a job in pause mode.
type PauseMode struct {
	// Whether to enable pause mode ("enable" in the older reference page; see DebugMode.Enabled).
	Enabled bool `json:"enabled"`

	// If provided, these specs provide overwriting values for job replicas when resuming.
	// +optional
	ResumeSpecs []ResumeSpec `json:"resumeSpecs,omitzero"`
}

// ResumeSpec describes how to resume replicas from pause mode.
type ResumeSpec struct {
	// Replica type.
	Type string `json:"type"`

	// Skips creation of initContainer, if true.
	// +optional
	SkipInitContainer bool `json:"skipInitContainer,omitempty"`

	// Entrypoint array. Provides overwriting values if provided; otherwise, values in immediate
	// mode are used. (A list of strings, as in the reference page and the simulator.)
	// +optional
	Command []string `json:"command,omitzero"`

	// Arguments to the entrypoint. Arguments in immediate mode are used if not provided.
	// +optional
	Args []string `json:"args,omitzero"`
}

// CleanUpPolicy specifies the collection of replicas that are to be deleted upon job completion.
// +kubebuilder:validation:Enum=None;Unfinished;All
type CleanUpPolicy string

const (
	// CleanUpPolicyNone (the default) reclaims no resources.
	CleanUpPolicyNone CleanUpPolicy = "None"
	// CleanUpPolicyUnfinished deletes the unfinished replicas.
	CleanUpPolicyUnfinished CleanUpPolicy = "Unfinished"
	// CleanUpPolicyAll deletes all the replicas.
	CleanUpPolicyAll CleanUpPolicy = "All"
)

// RestartPolicyType is the policy to restart a finished replica.
//
// GenericJob uses it inside RestartPolicy {policy, limit} (Always, OnFailure, Never).
// PyTorchTrainingJob's replicaSpecs[].restartPolicy and DeepSpeedJob's worker.restartPolicy are
// plain strings of this type (Always, OnFailure, Never, ExitCode); their pages call that type
// "RestartPolicy", a name this package gives to GenericJob's object.
// +kubebuilder:validation:Enum=Always;OnFailure;Never;ExitCode
type RestartPolicyType string

const (
	RestartPolicyAlways    RestartPolicyType = "Always"
	RestartPolicyOnFailure RestartPolicyType = "OnFailure"
	RestartPolicyNever     RestartPolicyType = "Never"
	// RestartPolicyExitCode restarts a replica whose exit code is retryable. Not for GenericJob.
	RestartPolicyExitCode RestartPolicyType = "ExitCode"
)

// RunPolicy encapsulates various runtime policies of the distributed training job, for example
// how to clean up resources and how long the job can stay active.
type RunPolicy struct {
	// Specifies the duration in seconds relative to the startTime that the job may be active
	// before the system tries to terminate it; value must be positive integer.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`

	// Optional number of retries before marking this job failed. Defaults to 3 (simulator model).
	// +kubebuilder:validation:Minimum=0
	// +optional
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`

	// Clean the tasks after the training job finished: All, Unfinished or None (the default).
	// +optional
	CleanUpPolicy CleanUpPolicy `json:"cleanUpPolicy,omitempty"`
}

// ElasticConfig governs the elastic scaling behavior of the job (PyTorchTrainingJob and
// DeepSpeedJob).
type ElasticConfig struct {
	// Set true to use elastic training ("enable" in the older reference page; see
	// DebugMode.Enabled).
	Enabled bool `json:"enabled"`

	// The minimum number of replicas to start to run this elastic compute. The autoscaler cannot
	// scale down an elastic job below this number. Cannot be changed once the job is created.
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// The maximum number of replicas to start to run this elastic compute. The autoscaler cannot
	// scale up an elastic job over this number. Cannot be changed once the job is created.
	// +optional
	MaxReplicas *int32 `json:"maxReplicas,omitempty"`

	// Number of replicas to be created. This number can be set to an initial value upon creation
	// and modified dynamically by an external entity, such as a user or an autoscaler (in the
	// simulator: the elastic policy), to scale the job up or down.
	// +optional
	ExpectedReplicas *int32 `json:"expectedReplicas,omitempty"`
}
