package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodGroupSpec describes the gang of pods a job's controller creates for the T9k scheduler
// (one PodGroup per job, named after it).
type PodGroupSpec struct {
	// The number of pods that must be schedulable together for the group to run.
	// +kubebuilder:validation:Minimum=0
	MinMember int32 `json:"minMember"`

	// Per-role minimums: one role per replica type.
	// +optional
	Roles []Role `json:"roles,omitzero"`

	// The queue the group runs in. The simulator reads an absent queue as "default".
	// +optional
	Queue string `json:"queue,omitempty"`

	// The group's priority, in [0, 100]. Defaults to 0. A pointer so that an explicit 0 (which
	// the simulator always writes) survives a round trip.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	Priority *int32 `json:"priority,omitempty"`

	// Topology placement policy (free text for the simulator).
	// +optional
	TopologyPolicy string `json:"topologyPolicy,omitempty"`

	// Set by the simulator once the job is terminal: the scheduler allocates nothing more to the
	// group.
	// t9ksim extension: not a field of the T9k scheduler's PodGroup.
	// +optional
	Finished bool `json:"finished,omitempty"`
}

// Role is the minimum membership of one role (replica type) of a PodGroup.
type Role struct {
	// The role's name: the replica type.
	Name string `json:"name"`

	// How many pods of the role must be schedulable together.
	// +kubebuilder:validation:Minimum=0
	MinMember int32 `json:"minMember"`
}

// PodGroupStatus is the scheduler's view of the group. The simulator writes every field.
type PodGroupStatus struct {
	// GroupScheduled and SufficientGroupMember, each True or False.
	// +optional
	Conditions []PodGroupCondition `json:"conditions,omitzero"`

	// Resources allocated to the group's pods.
	// +optional
	Allocated corev1.ResourceList `json:"allocated,omitzero"`

	// Pods of the group in each phase.
	Pending   int32 `json:"pending"`
	Running   int32 `json:"running"`
	Succeeded int32 `json:"succeeded"`
	Failed    int32 `json:"failed"`
	Unknown   int32 `json:"unknown"`
}

// PodGroupConditionType is the type of a PodGroup condition.
// +kubebuilder:validation:Enum=GroupScheduled;SufficientGroupMember
type PodGroupConditionType string

const (
	// PodGroupScheduled: the group's minimum membership has been placed.
	PodGroupScheduled PodGroupConditionType = "GroupScheduled"
	// PodGroupSufficientMember: the group has at least minMember pods (per role).
	PodGroupSufficientMember PodGroupConditionType = "SufficientGroupMember"
)

// PodGroupCondition is one condition of a PodGroup. The simulator reads and writes type and
// status; it accepts reason, message and lastTransitionTime (as the T9k scheduler writes them)
// and drops them.
type PodGroupCondition struct {
	Type   PodGroupConditionType  `json:"type"`
	Status corev1.ConditionStatus `json:"status"`
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pg

// PodGroup is a gang of pods scheduled together by the T9k scheduler.
type PodGroup struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec PodGroupSpec `json:"spec,omitzero"`
	// +optional
	Status PodGroupStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// PodGroupList contains a list of PodGroup.
type PodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodGroup `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PodGroup{}, &PodGroupList{})
}
