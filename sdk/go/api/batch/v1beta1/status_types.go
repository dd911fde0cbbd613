package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// JobStatus is the observed state of a job of any of the three kinds, exactly the simulator's job
// status (docs/protocol.md §6.4; protocol/schema/defs.json#/$defs/jobStatus), fields in the
// order the simulator writes them. GenericJobStatus, PyTorchTrainingJobStatus and
// DeepSpeedJobStatus are defined on it, so a status converts between kinds with a plain type
// conversion (JobStatus(job.Status)) and every kind can hold everything the protocol carries.
//
// The pages give each kind a subset: GenericJob tasks, phase, aggregate, conditions;
// PyTorchTrainingJob also tensorboard and backoffCount; DeepSpeedJob also backoffCount.
type JobStatus struct {
	// Provides a simple, high-level summary of where the Job is in its lifecycle.
	// +optional
	Phase JobPhase `json:"phase,omitempty"`

	// The latest available observations of a job's current state.
	// +optional
	Conditions []JobCondition `json:"conditions,omitempty"`

	// Records the number of replicas at each phase. Always present in the simulator's status
	// (all zeros when the controller gave none).
	Aggregate Aggregate `json:"aggregate"`

	// An array of status of individual tasks.
	// +optional
	Tasks []TaskStatus `json:"tasks,omitempty"`

	// The number of restarts having been performed. A pointer: the simulator distinguishes an
	// absent count from 0.
	// t9ksim extension: on GenericJob (the pages give it to PyTorchTrainingJob and DeepSpeedJob).
	// +optional
	BackoffCount *int32 `json:"backoffCount,omitempty"`

	// The status of the tensorboard.
	// t9ksim extension: on GenericJob and DeepSpeedJob (the pages give it to PyTorchTrainingJob).
	// +optional
	Tensorboard *DependentStatus `json:"tensorboard,omitempty"`

	// When the controller first reconciled the job.
	// t9ksim extension: not on the pages.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// When the job reached a terminal phase.
	// t9ksim extension: not on the pages.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// Start of the activeDeadlineSeconds clock: unset while Paused, reset on resume.
	// t9ksim extension: not on the pages.
	// +optional
	ActiveSince *metav1.Time `json:"activeSince,omitempty"`

	// The elastic scale training last (re)started with.
	// t9ksim extension: not on the pages.
	// +optional
	ElasticReplicas *int32 `json:"elasticReplicas,omitempty"`
}

// JobPhase is a high-level summary of where the job is in its lifecycle.
// +kubebuilder:validation:Enum=Pending;Running;Paused;Resuming;Succeeded;Failed;Unknown
type JobPhase string

const (
	JobPhasePending   JobPhase = "Pending"
	JobPhaseRunning   JobPhase = "Running"
	JobPhasePaused    JobPhase = "Paused"
	JobPhaseResuming  JobPhase = "Resuming"
	JobPhaseSucceeded JobPhase = "Succeeded"
	JobPhaseFailed    JobPhase = "Failed"
	JobPhaseUnknown   JobPhase = "Unknown"
)

// JobCondition describes the current state of a job.
type JobCondition struct {
	// Type of job condition.
	Type JobConditionType `json:"type"`

	// Status of the condition, one of True, False, Unknown.
	Status corev1.ConditionStatus `json:"status"`

	// Last time the condition transited from one status to another. The simulator always writes
	// it (1970-01-01T00:00:00Z, simulation time zero, when the controller gave none); a zero value
	// here is left out rather than written as null.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty,omitzero"`

	// Brief reason for the condition's last transition.
	// +optional
	Reason string `json:"reason,omitempty"`

	// Human readable message indicating details about last transition.
	// +optional
	Message string `json:"message,omitempty"`
}

// JobConditionType defines all possible types of JobStatus. Can be one of: Initialized, Running,
// ReplicaFailure, Completed, Failed or Paused. (Older examples spell Initialized
// "Initializing"; the simulator reads that with a warning.)
type JobConditionType string

const (
	JobConditionInitialized    JobConditionType = "Initialized"
	JobConditionRunning        JobConditionType = "Running"
	JobConditionReplicaFailure JobConditionType = "ReplicaFailure"
	JobConditionCompleted      JobConditionType = "Completed"
	JobConditionFailed         JobConditionType = "Failed"
	JobConditionPaused         JobConditionType = "Paused"
)

// Aggregate records the number of replica pods at each phase. Every count is always written.
type Aggregate struct {
	// Pod has been created, but resources have not been scheduled.
	Creating int32 `json:"creating"`
	// Pod has been accepted by the system, but one or more of the containers has not been started.
	Pending int32 `json:"pending"`
	// Pod has been bound to a node and all of the containers have been started.
	Running int32 `json:"running"`
	// All containers in the pod have voluntarily terminated with exit code 0.
	Succeeded int32 `json:"succeeded"`
	// All containers in the pod have terminated, and at least one has terminated in failure.
	Failed int32 `json:"failed"`
	// The state of the pod could not be obtained.
	Unknown int32 `json:"unknown"`
	// Pod has been deleted.
	Deleted int32 `json:"deleted"`
}

// TaskStatus defines the observed state of the replicas of one replica type. The GenericJob,
// PyTorchTrainingJob and DeepSpeedJob API pages call this type "Tasks", the reference page
// "TaskStatus".
type TaskStatus struct {
	// Replica type.
	Type string `json:"type"`

	// The number of restarts that have been performed (summed over the type's replicas). Always
	// written by the simulator, also when 0.
	RestartCount int32 `json:"restartCount"`

	// Replicas status array. (The older reference page calls it "replicaStatus"; the simulator
	// reads that with a warning and writes "replicas", as the API pages do.)
	// +optional
	Replicas []ReplicaStatus `json:"replicas,omitempty"`
}

// ReplicaStatus defines the observed state of the pod of one replica (rank).
type ReplicaStatus struct {
	// Pod name.
	Name string `json:"name"`

	// Pod uid.
	// +optional
	UID types.UID `json:"uid,omitempty"`

	// Pod phase: Pending, Running, Succeeded, Failed, Unknown, and the replica phases Creating
	// and Deleted (ReplicaCreating, ReplicaDeleted). The simulator always writes it (never empty);
	// omitempty keeps an unset phase out of a reply, where the simulator would refuse "".
	// +optional
	Phase corev1.PodPhase `json:"phase,omitempty"`

	// Containers status.
	// +optional
	Containers []ContainerStatus `json:"containers,omitempty"`

	// Restarts of this replica.
	// t9ksim extension: not on the pages (they count restarts per task only).
	// +optional
	RestartCount int32 `json:"restartCount,omitempty"`
}

// Replica phases beyond corev1's pod phases (docs/protocol.md §6.4).
const (
	ReplicaCreating corev1.PodPhase = "Creating"
	ReplicaDeleted  corev1.PodPhase = "Deleted"
)

// ContainerStatus defines the observed state of the container.
type ContainerStatus struct {
	// Container name.
	Name string `json:"name"`

	// State of container: waiting, running or terminated.
	// +optional
	State string `json:"state,omitempty"`

	// Exit code of the container if it is terminated. A pointer: 0 (succeeded) differs from
	// absent (not terminated).
	// +optional
	ExitCode *int32 `json:"exitCode,omitempty"`
}

// DependentStatus is the status of a K8s dependent object (the job's TensorBoard).
type DependentStatus struct {
	// Sub-resource's name used to distinguish sub-resources. It isn't K8s resource name.
	// +optional
	Name string `json:"name,omitempty"`

	// Refers to a K8s resource. Always written (possibly {}). The simulator keeps apiVersion,
	// kind, name, namespace and uid, and drops resourceVersion and fieldPath.
	Dependent corev1.ObjectReference `json:"dependent"`

	// Whether the sub-resource is ready to work.
	Ready bool `json:"ready"`

	// The reason why the sub-resource is in this status.
	// +optional
	Reason string `json:"reason,omitempty"`

	// An action for reconciling a dependent.
	// +optional
	Action string `json:"action,omitempty"`

	// A note that gives more information about this status.
	// +optional
	Note string `json:"note,omitempty"`

	// Status type, one of Normal or Warning.
	// +optional
	Type string `json:"type,omitempty"`
}
