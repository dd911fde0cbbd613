package genericjob

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
)

// The job's conditions (§1.2) and the replica part of its status (§1.3): ports of
// controllers/conditions.cpp (set_condition, apply_terminal_conditions), the status stage of
// controllers/reconcile.cpp (Reconcile::status) and fill_container_status / replica_phase of
// controllers/pods.cpp.

// conditionOrder is JobConditionType's order (model/enums.hpp): conditions are kept in it (§1.2).
var conditionOrder = []batchv1beta1.JobConditionType{
	batchv1beta1.JobConditionInitialized, batchv1beta1.JobConditionRunning, batchv1beta1.JobConditionReplicaFailure,
	batchv1beta1.JobConditionCompleted, batchv1beta1.JobConditionFailed, batchv1beta1.JobConditionPaused,
}

// findCondition is the condition of a type, nil if the status has none.
func findCondition(st *batchv1beta1.JobStatus, typ batchv1beta1.JobConditionType) *batchv1beta1.JobCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition: lastTransitionTime moves only when the status flips; reason and message always
// follow. A new condition goes before the first of a later type (set_condition).
func setCondition(st *batchv1beta1.JobStatus, typ batchv1beta1.JobConditionType,
	status corev1.ConditionStatus, reason, message string, now metav1.Time) {
	if c := findCondition(st, typ); c != nil {
		if c.Status != status {
			c.Status = status
			c.LastTransitionTime = now
		}
		c.Reason = reason
		c.Message = message
		return
	}
	rank := slices.Index(conditionOrder, typ)
	at := slices.IndexFunc(st.Conditions, func(c batchv1beta1.JobCondition) bool {
		return slices.Index(conditionOrder, c.Type) > rank
	})
	if at < 0 {
		at = len(st.Conditions)
	}
	st.Conditions = slices.Insert(st.Conditions, at, batchv1beta1.JobCondition{
		Type: typ, Status: status, LastTransitionTime: now, Reason: reason, Message: message})
}

// applyTerminalConditions gives the conditions of a finished job (§1.2, UC snapshots).
// Running=False is added even to a job that never ran.
func applyTerminalConditions(st *batchv1beta1.JobStatus, v *verdict, now metav1.Time) {
	if v.succeeded {
		setCondition(st, batchv1beta1.JobConditionRunning, corev1.ConditionFalse, "Succeeded", msgSucceeded, now)
		setCondition(st, batchv1beta1.JobConditionCompleted, corev1.ConditionTrue, "Succeeded", msgSucceeded, now)
		setCondition(st, batchv1beta1.JobConditionFailed, corev1.ConditionFalse, "Succeeded", msgSucceeded, now)
		return
	}
	setCondition(st, batchv1beta1.JobConditionRunning, corev1.ConditionFalse, "Failed", v.message, now)
	setCondition(st, batchv1beta1.JobConditionCompleted, corev1.ConditionTrue, "Failed", v.message, now)
	setCondition(st, batchv1beta1.JobConditionFailed, corev1.ConditionTrue, v.failedReason, v.message, now)
}

// conditionIs: the status has the condition with that status.
func conditionIs(st *batchv1beta1.JobStatus, typ batchv1beta1.JobConditionType,
	status corev1.ConditionStatus) bool {
	c := findCondition(st, typ)
	return c != nil && c.Status == status
}

// runningNow: the slot's pod runs and stays (not terminating, not deleted in this step).
func runningNow(s *slot) bool {
	return s.pod != nil && !s.pod.terminating && s.deleteReason == "" &&
		s.pod.phase == corev1.PodRunning
}

// replicaPhase is §1.3's mapping (detail::replica_phase). A Pending pod not yet bound to a node
// is Creating.
func replicaPhase(s *slot) corev1.PodPhase {
	switch {
	case s.deleteReason != "" || (s.pod != nil && s.pod.terminating):
		return batchv1beta1.ReplicaDeleted
	case s.create:
		return batchv1beta1.ReplicaCreating
	case s.pod == nil:
		return batchv1beta1.ReplicaDeleted // a slot whose pod is gone and not (yet) recreated
	}
	switch s.pod.phase {
	case corev1.PodPending:
		if s.pod.nodeName == "" {
			return batchv1beta1.ReplicaCreating
		}
		return corev1.PodPending
	case corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
		return s.pod.phase
	}
	return corev1.PodUnknown
}

// trainingContainer: a GenericJob trains in its first container (no preferred name,
// detail::training_container).
func trainingContainer(template *corev1.PodTemplateSpec) *corev1.Container {
	if template == nil || len(template.Spec.Containers) == 0 {
		return nil
	}
	return &template.Spec.Containers[0]
}

// containerStatuses: one container status for a slot with an observed pod
// (fill_container_status). An Unknown pod reads as waiting, with no exit code
// (docs/plugins.md §5, detail 4).
func containerStatuses(s *slot, t *typeView) []batchv1beta1.ContainerStatus {
	if s.pod == nil || s.create {
		return nil
	}
	cs := batchv1beta1.ContainerStatus{}
	if c := trainingContainer(t.template); c != nil {
		cs.Name = c.Name
	}
	switch s.pod.phase {
	case corev1.PodSucceeded:
		cs.State = "terminated"
		cs.ExitCode = new(int32)
	case corev1.PodFailed:
		cs.State = "terminated"
		code := s.pod.exitCodeOrKill()
		cs.ExitCode = &code
	case corev1.PodRunning:
		cs.State = "running"
	default: // Pending, Unknown
		cs.State = "waiting"
	}
	return []batchv1beta1.ContainerStatus{cs}
}

// replicaStatuses writes the tasks (one per replica type, its slots in order) and the
// aggregate counted from them (§1.3). commit: this step's restart decisions are kept in the
// counts; otherwise the previous counts are (Reconcile::finish).
func replicaStatuses(st *batchv1beta1.JobStatus, types []typeView, obs *observation,
	typeNow []int32, commit bool) {
	st.Aggregate = batchv1beta1.Aggregate{}
	st.Tasks = make([]batchv1beta1.TaskStatus, 0, len(types))
	for ti := range types {
		task := batchv1beta1.TaskStatus{Type: types[ti].typ, RestartCount: obs.typePrev[ti]}
		if commit {
			task.RestartCount = typeNow[ti]
		}
		for i := range obs.slots {
			s := &obs.slots[i]
			if s.typeIndex != ti {
				continue
			}
			r := batchv1beta1.ReplicaStatus{Name: s.name, Phase: replicaPhase(s),
				Containers: containerStatuses(s, &types[ti]), RestartCount: s.prevRestarts}
			if s.pod != nil && !s.create {
				r.UID = k8stypes.UID(s.pod.uid)
			}
			if commit {
				r.RestartCount = s.restarts
			}
			count(&st.Aggregate, r.Phase)
			task.Replicas = append(task.Replicas, r)
		}
		st.Tasks = append(st.Tasks, task)
	}
}

// count adds a replica of the phase to the aggregate.
func count(a *batchv1beta1.Aggregate, phase corev1.PodPhase) {
	switch phase {
	case batchv1beta1.ReplicaCreating:
		a.Creating++
	case corev1.PodPending:
		a.Pending++
	case corev1.PodRunning:
		a.Running++
	case corev1.PodSucceeded:
		a.Succeeded++
	case corev1.PodFailed:
		a.Failed++
	case corev1.PodUnknown:
		a.Unknown++
	default:
		a.Deleted++
	}
}
