package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GenericJobSpec defines the desired state of GenericJob.
type GenericJobSpec struct {
	// Rules used to check if a generic job has succeeded. The job succeeded when any one of the
	// successRules is fulfilled.
	// +optional
	SuccessRules []FinishRule `json:"successRules,omitzero"`

	// Rules used to check if a generic job has failed. The job failed when any one of
	// failureRules is fulfilled.
	// +optional
	FailureRules []FinishRule `json:"failureRules,omitzero"`

	// Details of v1/Service for replica pods. Optional: defaults to empty and no service will be
	// created.
	// +optional
	Service *ServiceOption `json:"service,omitempty"`

	// Job running mode. Defaults to Immediate mode.
	// +optional
	RunMode *RunMode `json:"runMode,omitempty"`

	// To avoid wasting resources on completed tasks, controller will reclaim resource according
	// to the following policies: None: (default) no resources reclamation; Unfinished: only
	// unfinished pods are to be deleted; All: all the pods are to be deleted.
	// +optional
	CleanUpPolicy CleanUpPolicy `json:"cleanUpPolicy,omitempty"`

	// If specified, the pods will be dispatched by the specified scheduler. Otherwise, the pods
	// will be dispatched by the default scheduler.
	// +optional
	Scheduler *SchedulePolicy `json:"scheduler,omitempty"`

	// List of replica specs belonging to the job. There must be at least one replica defined.
	// +kubebuilder:validation:MinItems=1
	ReplicaSpecs []ReplicaSpec `json:"replicaSpecs"`
}

// FinishRule is a condition used to check if the job has finished. A finishRule identifies a set
// of replicas, and the controller determines the job's status by checking the status of all of
// these replicas: a mapping from replica type to the ranks of that type, e.g. {"worker": [0, 1]}.
//
// The API page describes FinishRule without listing its fields; the shape is the one every
// published manifest (`failureRules: [{"worker": [0]}]`) and the simulator's reader and writer
// use (docs/protocol.md §6.1, protocol/schema/job.json#/$defs/finishRule).
type FinishRule map[string][]int32

// ServiceOption gives the details of the replicas' service.
type ServiceOption struct {
	// The list of ports that are exposed by this service.
	Ports []ServicePort `json:"ports"`
}

// ServicePort is one port of the replicas' service.
//
// The API page names the type ServicePort without listing its fields. These are the two fields
// the simulator reads (and the only ones it accepts; protocol/schema/job.json) and the
// published manifests use. Not corev1.ServicePort: encoding that writes `targetPort: 0` for
// every port (its IntOrString is not left out by omitempty), which the simulator refuses.
type ServicePort struct {
	// The name of this port within the service.
	Name string `json:"name"`

	// The port that will be exposed by this service.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// ReplicaSpec defines the desired state of the replicas of one type of a GenericJob.
// (PyTorchTrainingJob's replica spec, which the pages also call ReplicaSpec, is
// PyTorchReplicaSpec here.)
type ReplicaSpec struct {
	// Replica type.
	Type string `json:"type"`

	// The desired number of replicas of this replica type. Defaults to 1.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Restart policy for replicas of this replica type. Optional: defaults to
	// {policy: OnFailure, limit: 0}.
	// +optional
	RestartPolicy *RestartPolicy `json:"restartPolicy,omitempty"`

	// Defines the template used to create pods.
	Template corev1.PodTemplateSpec `json:"template"`
}

// RestartPolicy describes how a GenericJob replica should be restarted. (PyTorchTrainingJob and
// DeepSpeedJob take a plain RestartPolicyType instead.)
type RestartPolicy struct {
	// The policy to restart finished replica: Always, OnFailure or Never (no ExitCode for
	// GenericJob).
	// +kubebuilder:validation:Enum=Always;OnFailure;Never
	// +optional
	Policy RestartPolicyType `json:"policy,omitempty"`

	// The maximum number of restarts. Optional: defaults to 0.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Limit *int32 `json:"limit,omitempty"`
}

// GenericJobStatus defines the observed state of GenericJob. The page lists tasks, phase,
// aggregate and conditions; it is the whole simulator status (JobStatus), so backoffCount,
// tensorboard, startTime, completionTime, activeSince and elasticReplicas are t9ksim extensions
// here.
type GenericJobStatus JobStatus

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=gj
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// GenericJob represents the schema for a general-purpose batch job API. While it offers less
// automation compared to specialized APIs like PyTorchTrainingJob, it allows for greater
// flexibility in specifying parallel replicas/pods.
type GenericJob struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec GenericJobSpec `json:"spec,omitzero"`
	// +optional
	Status GenericJobStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// GenericJobList contains a list of GenericJob.
type GenericJobList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GenericJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&GenericJob{}, &GenericJobList{})
}
