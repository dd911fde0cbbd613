// Package genericjob is a GenericJob controller (batch.tensorstack.dev/v1beta1) written the
// kubebuilder way, on controller-runtime, that answers exactly what t9ksim's built-in GenericJob
// controller answers when the SDK's adapter (t9ksim.dev/sdk/plugin) serves it to the simulator.
//
// It is a port of controllers/ (reconcile.cpp, pods.cpp, rules.cpp, conditions.cpp) for kind
// GenericJob, by way of the Python port plugins/examples/reference_generic/, whose comments it
// keeps: section numbers (§N) are those of the behaviour spec that docs/controllers.md cites,
// "UC" its use cases. The texts are those of protocol/contract/controller-texts.json.
//
// Reconcile first decides, without side effects (newStep(...).run() gives a plan), then carries
// the plan out with the client in the built-in's order of actions. The decisions are unit-tested
// on their own (*_test.go); controller_test.go serves the reconciler through the adapter.
//
// Files, by idea:
//
//	controller.go  the GenericJobReconciler, its Reconcile and SetupWithManager
//	reconcile.go   the stages of one reconcile, in the built-in's order
//	observe.go     what the controller reads of its pods, and the replica slots (§1.3)
//	rules.go       restart policies, budgets and back-off (§2), success and failure rules (§3.1),
//	               the cleanup of a finished job (§6.2)
//	pods.go        the pods the job asks for (§7 run modes, §10 labels)
//	podgroup.go    its PodGroup for the T9k scheduler (§8.1)
//	status.go      conditions (§1.2) and the status as written (§1.3)
//	options.go     the scenario's controller options this controller reads (docs/protocol.md §6.5)
//
// The controller reads no wall clock: the simulated time comes from its Clock. It keeps nothing
// between reconciles but what it writes into the job's status (docs/plugins.md §3).
package genericjob
