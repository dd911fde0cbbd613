// Package v1beta1 contains the Go types of the T9k job API, group batch.tensorstack.dev,
// version v1beta1: GenericJob, PyTorchTrainingJob and DeepSpeedJob.
//
// Field names, JSON names and shapes follow the official API reference pages
// (shared/seeds/genericjob-api.txt, pytorchtrainingjob-api.md, pytorchtrainingjob-reference.md,
// deepspeedjob-api.md), the published manifests (shared/examples/t9k-manifests) and what the
// simulator reads and writes (docs/scenario-format.md, docs/protocol.md §6, scenarios/format/).
// Where they disagree, the comment at the field says which one was followed.
//
// JSON conventions:
//   - Optional scalars whose zero value is a meaningful setting different from the default
//     (replicas, priorities, limits, localRank, ...) are pointers, so that an explicit zero or false
//     survives a decode/encode round trip.
//   - Optional lists use `omitzero` (Go 1.24+) rather than `omitempty`: an absent list stays
//     absent and an explicitly empty one stays `[]`. The difference matters to the simulator
//     (an empty `config.run.python: []` still counts as "set" for DeepSpeed's exactly-one rule)
//     and appears in published manifests (`torchrunConfig.extraOptions: []`).
//   - Status fields are exactly the simulator's job status (docs/protocol.md §6.4,
//     protocol/schema/defs.json#/$defs/jobStatus); fields the reference pages do not give are
//     marked "t9ksim extension".
//
// +kubebuilder:object:generate=true
// +groupName=batch.tensorstack.dev
package v1beta1

//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 object paths=.
