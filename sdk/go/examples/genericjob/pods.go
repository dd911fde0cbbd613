package genericjob

import (
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	"t9ksim.dev/sdk/plugin"
)

// The pods a GenericJob asks for (§7 run modes, §8.1, §10 labels): make_pod and name_pod of
// controllers/pods.cpp.

// Scheduler names and the default queue (§8.1, §8.3).
const (
	t9kSchedulerName     = "t9k-scheduler"
	defaultSchedulerName = "default-scheduler"
	defaultQueue         = "default"
)

// The labels of a replica's pod (§10; §8.1 for the T9k scheduler).
const (
	labelGenericJob        = "genericjob"
	labelGenericJobReplica = "genericjob-replica"
	labelGroupName         = "scheduler.tensorstack.dev/group-name"
	labelQueue             = "scheduler.tensorstack.dev/queue"
	labelRole              = "scheduler.tensorstack.dev/role"
	labelComponent         = "tensorstack.dev/component"
	labelComponentType     = "tensorstack.dev/component-type"
	labelOwnerName         = "tensorstack.dev/owner-name"
)

// defaultDebugCommand replaces training in debug mode (model::default_debug_command, API
// ReplicaDebugSet).
var defaultDebugCommand = []string{"sleep", "inf"}

// t9kScheduler is the job's T9k scheduler settings, nil for the Kubernetes default scheduler.
func t9kScheduler(job *batchv1beta1.GenericJob) *batchv1beta1.T9kScheduler {
	if job.Spec.Scheduler == nil {
		return nil
	}
	return job.Spec.Scheduler.T9kScheduler
}

// queueOf: an empty queue is the default one (§8.3).
func queueOf(t9k *batchv1beta1.T9kScheduler) string {
	if t9k.Queue == "" {
		return defaultQueue
	}
	return t9k.Queue
}

// podCommand is what a pod runs, after the run mode (§7).
type podCommand struct {
	debug     bool
	command   []string
	args      []string
	skipInits bool
}

// runModeCommand: §7.1 debug (the debug command replaces training) or §7.2 resumeSpecs once
// the job has been paused. Every matching entry applies in turn (make_pod).
func runModeCommand(job *batchv1beta1.GenericJob, typ string, resumed bool,
	training *corev1.Container) podCommand {
	var pc podCommand
	if training != nil {
		pc.command, pc.args = training.Command, training.Args
	}
	mode := job.Spec.RunMode
	if mode == nil {
		return pc
	}
	if mode.Debug != nil && mode.Debug.Enabled {
		pc = podCommand{debug: true, command: defaultDebugCommand}
		for _, d := range mode.Debug.ReplicaSpecs {
			if d.Type != typ {
				continue
			}
			pc.skipInits = d.SkipInitContainer
			if len(d.Command) > 0 {
				pc.command = d.Command
			}
		}
		return pc
	}
	if resumed && mode.Pause != nil {
		for _, r := range mode.Pause.ResumeSpecs {
			if r.Type != typ {
				continue
			}
			pc.skipInits = r.SkipInitContainer
			if len(r.Command) > 0 {
				pc.command = r.Command
			}
			if len(r.Args) > 0 {
				pc.args = r.Args
			}
		}
	}
	return pc
}

// newPod is the pod of one replica slot: named "<job>-<type>-<rank>", the template's metadata
// and spec with §10's labels over the template's, the run mode's command in its training
// container, owned by the job. resumed: the job has been paused, so resumeSpecs apply (§7.2).
func newPod(job *batchv1beta1.GenericJob, t *typeView, s *slot, resumed bool) *corev1.Pod {
	tmpl := t.template.DeepCopy()
	pc := runModeCommand(job, t.typ, resumed, trainingContainer(t.template))
	t9k := t9kScheduler(job)

	labels := maps.Clone(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[labelGenericJob] = job.Name
	labels[labelGenericJobReplica] = s.name
	if t9k != nil {
		labels[labelGroupName] = job.Name
		labels[labelQueue] = queueOf(t9k)
		labels[labelRole] = t.typ
	}
	labels[labelComponent] = strings.ToLower(batchv1beta1.GenericJobKind)
	labels[labelComponentType] = "user"
	labels[labelOwnerName] = job.Name

	// The template's annotations, and what the simulator must know beyond Kubernetes: the
	// replica type and rank (the adapter takes these off before the pod leaves), and that a
	// debug-mode pod never finishes on its own (the world's contract 6, docs/plugins.md §3).
	annotations := maps.Clone(tmpl.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[plugin.AnnotationReplicaType] = t.typ
	annotations[plugin.AnnotationRank] = strconv.FormatInt(int64(s.rank), 10)
	if pc.debug {
		annotations[plugin.AnnotationDebug] = "true"
	}

	spec := tmpl.Spec
	if len(spec.Containers) > 0 {
		spec.Containers[0].Command, spec.Containers[0].Args = pc.command, pc.args
	} else if len(pc.command) > 0 || len(pc.args) > 0 {
		// A template without containers still runs the run mode's command (make_pod keeps it
		// on the pod): it goes into a container of its own, which asks for nothing.
		spec.Containers = []corev1.Container{{Name: "main", Command: pc.command, Args: pc.args}}
	}
	if pc.skipInits { // §7.1, §7.2 skipInitContainer
		spec.InitContainers = nil
	}
	switch {
	case t9k != nil:
		spec.SchedulerName = t9kSchedulerName
	case spec.SchedulerName == "":
		spec.SchedulerName = defaultSchedulerName
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:            s.name,
			Namespace:       job.Namespace,
			Labels:          labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*ownerReference(job)},
		},
		Spec: spec,
	}
}

// ownerReference makes the job the controller of what it creates.
func ownerReference(job *batchv1beta1.GenericJob) *metav1.OwnerReference {
	return metav1.NewControllerRef(job, batchv1beta1.GroupVersion.WithKind(batchv1beta1.GenericJobKind))
}
