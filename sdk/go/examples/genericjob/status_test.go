package genericjob

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
)

func at(sec int64) metav1.Time { return metav1.NewTime(time.Unix(sec, 0).UTC()) }

func conditionTypes(st *batchv1beta1.JobStatus) []batchv1beta1.JobConditionType {
	var out []batchv1beta1.JobConditionType
	for _, c := range st.Conditions {
		out = append(out, c.Type)
	}
	return out
}

func TestSetConditionKeepsTheOrder(t *testing.T) { // §1.2: Initialized ... Paused
	st := &batchv1beta1.JobStatus{}
	setCondition(st, batchv1beta1.JobConditionPaused, corev1.ConditionTrue, "Paused", "p", at(1))
	setCondition(st, batchv1beta1.JobConditionReplicaFailure, corev1.ConditionFalse, "", "r", at(2))
	setCondition(st, batchv1beta1.JobConditionInitialized, corev1.ConditionTrue, "", "i", at(3))
	setCondition(st, batchv1beta1.JobConditionCompleted, corev1.ConditionTrue, "Failed", "c", at(4))
	want := []batchv1beta1.JobConditionType{batchv1beta1.JobConditionInitialized,
		batchv1beta1.JobConditionReplicaFailure, batchv1beta1.JobConditionCompleted,
		batchv1beta1.JobConditionPaused}
	if got := conditionTypes(st); len(got) != len(want) {
		t.Fatalf("conditions %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("conditions %v, want %v", got, want)
			}
		}
	}
}

func TestSetConditionTransitionTime(t *testing.T) { // moves only when the status flips
	st := &batchv1beta1.JobStatus{}
	setCondition(st, batchv1beta1.JobConditionRunning, corev1.ConditionTrue, "Running", "a", at(10))
	setCondition(st, batchv1beta1.JobConditionRunning, corev1.ConditionTrue, "Other", "b", at(20))
	c := findCondition(st, batchv1beta1.JobConditionRunning)
	if !c.LastTransitionTime.Equal(&metav1.Time{Time: at(10).Time}) || c.Reason != "Other" || c.Message != "b" {
		t.Errorf("same status: %+v; want the time kept, reason and message replaced", c)
	}
	setCondition(st, batchv1beta1.JobConditionRunning, corev1.ConditionFalse, "Paused", "c", at(30))
	if c := findCondition(st, batchv1beta1.JobConditionRunning); c.LastTransitionTime.Unix() != 30 {
		t.Errorf("flipped status: transition time %v, want 30 s", c.LastTransitionTime)
	}
}

func TestApplyTerminalConditions(t *testing.T) { // §1.2, UC snapshots
	st := &batchv1beta1.JobStatus{}
	applyTerminalConditions(st, &verdict{failedReason: "Failed", message: "m"}, at(5))
	want := []struct {
		typ             batchv1beta1.JobConditionType
		status          corev1.ConditionStatus
		reason, message string
	}{
		{batchv1beta1.JobConditionRunning, corev1.ConditionFalse, "Failed", "m"},
		{batchv1beta1.JobConditionCompleted, corev1.ConditionTrue, "Failed", "m"},
		{batchv1beta1.JobConditionFailed, corev1.ConditionTrue, "Failed", "m"},
	}
	if len(st.Conditions) != len(want) {
		t.Fatalf("conditions %+v", st.Conditions)
	}
	for i, w := range want {
		c := st.Conditions[i]
		if c.Type != w.typ || c.Status != w.status || c.Reason != w.reason || c.Message != w.message {
			t.Errorf("condition %d = %+v, want %+v", i, c, w)
		}
	}
	st = &batchv1beta1.JobStatus{}
	applyTerminalConditions(st, &verdict{succeeded: true, message: msgSucceeded}, at(5))
	if c := findCondition(st, batchv1beta1.JobConditionFailed); c.Status != corev1.ConditionFalse ||
		c.Reason != "Succeeded" || c.Message != msgSucceeded {
		t.Errorf("success: Failed condition %+v", c)
	}
}

func TestReplicaPhaseAndContainers(t *testing.T) { // §1.3, fill_container_status
	tmpl := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "trainer"}, {Name: "side"}}}}
	tv := &typeView{template: tmpl}
	for _, tc := range []struct {
		name  string
		s     slot
		phase corev1.PodPhase
		state string
		exit  *int32
	}{
		{"no pod", slot{}, batchv1beta1.ReplicaDeleted, "", nil},
		{"to create", slot{create: true}, batchv1beta1.ReplicaCreating, "", nil},
		{"pending, unbound", slot{pod: &observedPod{phase: corev1.PodPending}}, batchv1beta1.ReplicaCreating, "waiting", nil},
		{"pending, bound", slot{pod: &observedPod{phase: corev1.PodPending, nodeName: "n"}}, corev1.PodPending, "waiting", nil},
		{"running", slot{pod: &observedPod{phase: corev1.PodRunning}}, corev1.PodRunning, "running", nil},
		{"running, deleted now", slot{pod: &observedPod{phase: corev1.PodRunning}, deleteReason: reasonPause}, batchv1beta1.ReplicaDeleted, "running", nil},
		{"terminating", slot{pod: &observedPod{phase: corev1.PodRunning, terminating: true}}, batchv1beta1.ReplicaDeleted, "running", nil},
		{"succeeded", slot{pod: &observedPod{phase: corev1.PodSucceeded}}, corev1.PodSucceeded, "terminated", code(0)},
		{"failed", slot{pod: failedPod("p", code(3))}, corev1.PodFailed, "terminated", code(3)},
		{"failed, no exit code", slot{pod: failedPod("p", nil)}, corev1.PodFailed, "terminated", code(137)},
		{"unknown", slot{pod: &observedPod{phase: corev1.PodUnknown}}, corev1.PodUnknown, "waiting", nil},
	} {
		if got := replicaPhase(&tc.s); got != tc.phase {
			t.Errorf("%s: phase %s, want %s", tc.name, got, tc.phase)
		}
		cs := containerStatuses(&tc.s, tv)
		if tc.state == "" {
			if cs != nil {
				t.Errorf("%s: container statuses %+v, want none", tc.name, cs)
			}
			continue
		}
		if len(cs) != 1 || cs[0].Name != "trainer" || cs[0].State != tc.state ||
			(cs[0].ExitCode == nil) != (tc.exit == nil) || (tc.exit != nil && *cs[0].ExitCode != *tc.exit) {
			t.Errorf("%s: container statuses %+v, want trainer %s %v", tc.name, cs, tc.state, tc.exit)
		}
	}
}
