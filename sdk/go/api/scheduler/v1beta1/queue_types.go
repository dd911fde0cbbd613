package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// QueueSpec is a T9k scheduler queue: quota, priority, preemption and placement of the PodGroups
// that name it (fields as the simulator reads them, scenarios/format/decode_scheduling_objects.cpp;
// semantics in docs/scheduler.md).
type QueueSpec struct {
	// The queue's quota. (Older manifests give spec.requests; the simulator reads that with a
	// warning, these types do not.)
	// +optional
	Quota *Quota `json:"quota,omitempty"`

	// The queue's priority, in [0, 100].
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	Priority *int32 `json:"priority,omitempty"`

	// Whether the queue's PodGroups may be preempted. Unset means preemptible.
	// +optional
	Preemptible *bool `json:"preemptible,omitempty"`

	// A closed queue admits no new PodGroups.
	// +optional
	Closed *bool `json:"closed,omitempty"`

	// The longest a PodGroup of the queue may run, e.g. "2h45m", "1w2d", "0".
	// +optional
	MaxDuration string `json:"maxDuration,omitempty"`

	// Name of a resource shape profile.
	// +optional
	ResourceShapeProfile string `json:"resourceShapeProfile,omitempty"`

	// The nodes the queue's pods may run on.
	// +optional
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`

	// The namespaces whose PodGroups may use the queue.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// Quota is a queue's resource quota.
type Quota struct {
	// The most the queue's pods may request together.
	// +optional
	Requests corev1.ResourceList `json:"requests,omitzero"`
}

// QueueStatus is the scheduler's accounting of a queue. (A real export's status may also carry
// conditions; the simulator drops them, and so these types have none.)
type QueueStatus struct {
	// Resources allocated to the queue's pods.
	// +optional
	Allocated corev1.ResourceList `json:"allocated,omitzero"`

	// PodGroups of the queue.
	PodGroups QueuePodGroups `json:"podGroups"`

	// Pods of the queue in each phase.
	Pods QueuePods `json:"pods"`
}

// QueuePodGroups counts a queue's PodGroups.
type QueuePodGroups struct {
	Total int32 `json:"total"`
}

// QueuePods counts a queue's pods per phase.
type QueuePods struct {
	Pending   int32 `json:"pending"`
	Running   int32 `json:"running"`
	Succeeded int32 `json:"succeeded"`
	Failed    int32 `json:"failed"`
	Unknown   int32 `json:"unknown"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Queue is a T9k scheduler queue.
type Queue struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec QueueSpec `json:"spec,omitzero"`
	// +optional
	Status QueueStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// QueueList contains a list of Queue.
type QueueList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Queue `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Queue{}, &QueueList{})
}
