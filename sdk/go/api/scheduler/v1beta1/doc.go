// Package v1beta1 contains the Go types of the T9k scheduler's API, group
// scheduler.tensorstack.dev, version v1beta1: PodGroup and Queue, the objects the simulator reads
// (docs/scenario-format.md "Manifest files") and, for PodGroups, sends and takes back in the
// plugin protocol (docs/protocol.md §6.3; protocol/schema/defs.json#/$defs/podGroup).
//
// Conventions as in t9ksim.dev/sdk/api/batch/v1beta1: optional scalars with a meaningful zero are
// pointers, optional lists and maps use `omitzero`, fields that only the simulator has are marked
// "t9ksim extension".
//
// +kubebuilder:object:generate=true
// +groupName=scheduler.tensorstack.dev
package v1beta1

//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 object paths=.
