package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeepSpeedJobSpec outlines the intended configuration and execution parameters for a
// DeepSpeedJob.
type DeepSpeedJobSpec struct {
	// Identifies the preferred scheduler for allocating resources to replicas. Defaults to
	// cluster default scheduler.
	// +optional
	Scheduler *SchedulePolicy `json:"scheduler,omitempty"`

	// Execution policy configurations governing the behavior of the distributed training job.
	// +optional
	RunPolicy *RunPolicy `json:"runPolicy,omitempty"`

	// Job's execution behavior. If omitted, defaults to Immediate mode.
	// +optional
	RunMode *RunMode `json:"runMode,omitempty"`

	// Configurations for how to launch an elastic training.
	// +optional
	Elastic *ElasticConfig `json:"elastic,omitempty"`

	// Key configurations for executing DeepSpeed training jobs.
	// +optional
	Config *Config `json:"config,omitempty"`

	// false (default): the environment variables set in job specs are used in the training
	// processes (the controller puts them into the env file the launcher distributes); true: they
	// are only used to start the container entrypoint program.
	// +optional
	DisableCustomEnv bool `json:"disableCustomEnv,omitempty"`

	// Specifications for the worker replicas.
	Worker Worker `json:"worker"`
}

// Config is the configuration for running a DeepSpeed job (https://www.deepspeed.ai/getting-started/).
type Config struct {
	// Custom launch commands; when set, other options in Config except for slotsPerWorker do not
	// take effect.
	// +optional
	CustomCommand string `json:"customCommand,omitempty"`

	// The number of slots for each worker/replica. This is normally set to the number of GPUs
	// requested for each replica.
	// +kubebuilder:validation:Minimum=1
	// +optional
	SlotsPerWorker *int32 `json:"slotsPerWorker,omitempty"`

	// If parameter local_rank should be passed to training programs. Defaults to true
	// (simulator model), hence a pointer.
	// +optional
	LocalRank *bool `json:"localRank,omitempty"`

	// Parameters for running the autotuning process: none (the default), run or tune.
	// +optional
	Autotune AutotuneType `json:"autotune,omitempty"`

	// Mechanism to start the training program.
	// +optional
	Run *RunType `json:"run,omitempty"`

	// Other command line args for the deepspeed job.
	// +optional
	OtherArgs []string `json:"otherArgs,omitzero"`
}

// AutotuneType selects DeepSpeed's autotuning.
// +kubebuilder:validation:Enum=none;run;tune
type AutotuneType string

const (
	AutotuneNone AutotuneType = "none"
	AutotuneRun  AutotuneType = "run"
	AutotuneTune AutotuneType = "tune"
)

// RunType says how the training program should be started. Exactly one of the 3 choices should
// be set; an explicitly empty list counts as set (the lists keep `[]` through a round trip).
type RunType struct {
	// Using a python script.
	// +optional
	Python []string `json:"python,omitzero"`

	// Using a python module.
	// +optional
	Module []string `json:"module,omitzero"`

	// Using an executable program.
	// +optional
	Exec []string `json:"exec,omitzero"`
}

// Worker defines the configurations for DeepSpeedJob worker replicas.
type Worker struct {
	// The number of workers to launch. Defaults to 1.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Describes the pod that will be created for this replica.
	Template corev1.PodTemplateSpec `json:"template"`

	// Restart policy for all replicas owned by the job. One of Always, OnFailure, Never, or
	// ExitCode. Defaults to OnFailure. (The page names the type RestartPolicy; see
	// RestartPolicyType.)
	// +optional
	RestartPolicy RestartPolicyType `json:"restartPolicy,omitempty"`
}

// DeepSpeedJobStatus represents the observed state of a DeepSpeedJob. The page lists tasks,
// aggregate, phase, backoffCount and conditions; it is the whole simulator status (JobStatus),
// so tensorboard, startTime, completionTime, activeSince and elasticReplicas are t9ksim
// extensions here.
type DeepSpeedJobStatus JobStatus

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=dj
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// DeepSpeedJob defines the schema for the DeepSpeedJob API.
type DeepSpeedJob struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec DeepSpeedJobSpec `json:"spec,omitzero"`
	// +optional
	Status DeepSpeedJobStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// DeepSpeedJobList contains a list of DeepSpeedJob.
type DeepSpeedJobList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DeepSpeedJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&DeepSpeedJob{}, &DeepSpeedJobList{})
}
