package v1beta1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the T9k job API.
	GroupVersion = schema.GroupVersion{Group: "batch.tensorstack.dev", Version: "v1beta1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds GenericJob, PyTorchTrainingJob, DeepSpeedJob and their lists to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind names of this group.
const (
	GenericJobKind         = "GenericJob"
	PyTorchTrainingJobKind = "PyTorchTrainingJob"
	DeepSpeedJobKind       = "DeepSpeedJob"
)

// Resource takes an unqualified resource name and returns a group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}
