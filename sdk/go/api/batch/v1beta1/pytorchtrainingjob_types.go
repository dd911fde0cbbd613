package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PyTorchTrainingJobSpec outlines the intended configuration and execution parameters for a
// PyTorchTrainingJob.
type PyTorchTrainingJobSpec struct {
	// An array of ReplicaSpec. Specifies the pytorch cluster configuration.
	// +kubebuilder:validation:MinItems=1
	ReplicaSpecs []PyTorchReplicaSpec `json:"replicaSpecs"`

	// Configurations for how to launch an elastic training. Elastic training is effective only
	// in torchrun mode.
	// +optional
	Elastic *ElasticConfig `json:"elastic,omitempty"`

	// Whether and how to use torchrun to launch a training process.
	// +optional
	TorchrunConfig *TorchrunConfig `json:"torchrunConfig,omitempty"`

	// Job's execution behavior. If omitted, defaults to Immediate mode, and tasks are executed
	// immediately upon submission.
	// +optional
	RunMode *RunMode `json:"runMode,omitempty"`

	// Execution policy configurations governing the behavior of a PyTorchTrainingJob.
	// +optional
	RunPolicy *RunPolicy `json:"runPolicy,omitempty"`

	// If specified, controller will create a Tensorboard for showing training logs.
	// +optional
	TensorboardSpec *TensorBoardSpec `json:"tensorboardSpec,omitempty"`

	// Identifies the preferred scheduler for allocating resources to replicas. Defaults to
	// cluster default scheduler.
	// +optional
	Scheduler *SchedulePolicy `json:"scheduler,omitempty"`
}

// PyTorchReplicaSpec is a description of a PyTorchTrainingJob replica. The pages call it
// ReplicaSpec; here that name is GenericJob's (whose restartPolicy is an object).
type PyTorchReplicaSpec struct {
	// ReplicaType is the type of the replica, e.g. "master" or "worker".
	Type string `json:"type"`

	// The desired number of replicas of the current template. Defaults to 1.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Scaling weight of the current replica used in elastic training.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ScalingWeight *int32 `json:"scalingWeight,omitempty"`

	// Describes the pod that will be created for this replica. Note that RestartPolicy in
	// PodTemplateSpec will always be set to Never as the job controller will decide if restarts
	// are desired.
	Template corev1.PodTemplateSpec `json:"template"`

	// Restart policy for all replicas within the job. One of Always, OnFailure, Never, or
	// ExitCode. Defaults to Never (reference page).
	// +optional
	RestartPolicy RestartPolicyType `json:"restartPolicy,omitempty"`
}

// TorchrunConfig describes how to launch pytorch training with torchrun.
type TorchrunConfig struct {
	// Set true to use torchrun to launch pytorch training ("enable" in the older reference page;
	// see DebugMode.Enabled).
	Enabled bool `json:"enabled"`

	// The maximum number of restarts torchrun performs.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxRestarts *int32 `json:"maxRestarts,omitempty"`

	// Number of processes to be started on every replica: a positive integer, or gpu, cpu, auto.
	// Defaults to "1" (simulator model).
	// +optional
	ProcPerNode string `json:"procPerNode,omitempty"`

	// Communication backend used for the group: c10d (the default), etcd or etcd-v2.
	// +optional
	RdzvBackend string `json:"rdzvBackend,omitempty"`

	// Extra options for torchrun.
	// +optional
	ExtraOptions []string `json:"extraOptions,omitzero"`
}

// TensorBoardSpec describes the TensorBoard the controller creates for showing training logs.
// The pages link the type (tensorboard.md) without listing it; these are the fields the
// published manifests use and the simulator reads.
type TensorBoardSpec struct {
	// The TensorBoard image.
	// +optional
	Image string `json:"image,omitempty"`

	// Where the training logs are, e.g. "t9k://pvc/<pvc>/<path>".
	// +optional
	TrainingLogFilesets []string `json:"trainingLogFilesets,omitzero"`
}

// PyTorchTrainingJobStatus defines the observed state of PyTorchTrainingJob. The page lists
// tasks, tensorboard, backoffCount, aggregate, conditions and phase; it is the whole simulator
// status (JobStatus), so startTime, completionTime, activeSince and elasticReplicas are t9ksim
// extensions here.
type PyTorchTrainingJobStatus JobStatus

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pj
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PyTorchTrainingJob is the Schema for the pytorchtrainingjobs API.
type PyTorchTrainingJob struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec PyTorchTrainingJobSpec `json:"spec,omitzero"`
	// +optional
	Status PyTorchTrainingJobStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// PyTorchTrainingJobList contains a list of PyTorchTrainingJob.
type PyTorchTrainingJobList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PyTorchTrainingJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PyTorchTrainingJob{}, &PyTorchTrainingJobList{})
}
