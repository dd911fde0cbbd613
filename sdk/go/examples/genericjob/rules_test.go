package genericjob

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func code(c int32) *int32 { return &c }

// failedPod is a Failed pod with an exit code (nil: none, read as 137).
func failedPod(name string, exit *int32) *observedPod {
	return &observedPod{name: name, phase: corev1.PodFailed, exitCode: exit}
}

func TestIsRetryable(t *testing.T) { // §2.2
	t9k := defaultSettings()
	kubeflow := defaultSettings()
	kubeflow.kubeflowRetryable = true
	for _, tc := range []struct {
		code int32
		s    settings
		want bool
	}{
		{137, t9k, true}, {143, t9k, true}, {1, t9k, false}, {200, t9k, false},
		{128, kubeflow, true}, {200, kubeflow, true}, {127, kubeflow, false}, {1, kubeflow, false},
	} {
		if got := isRetryable(tc.code, tc.s); got != tc.want {
			t.Errorf("isRetryable(%d, kubeflow=%v) = %v, want %v", tc.code, tc.s.kubeflowRetryable, got, tc.want)
		}
	}
}

func TestPolicyRestarts(t *testing.T) { // §2.2: Always restarts a pod that exited 0 too
	s := defaultSettings()
	succeeded := &observedPod{phase: corev1.PodSucceeded, exitCode: code(0)}
	for _, tc := range []struct {
		policy string
		pod    *observedPod
		want   bool
	}{
		{policyAlways, succeeded, true},
		{policyOnFailure, succeeded, false},
		{policyNever, succeeded, false},
		{policyOnFailure, failedPod("p", code(1)), true},
		{policyAlways, failedPod("p", code(1)), true},
		{policyNever, failedPod("p", code(1)), false},
		{policyExitCode, failedPod("p", code(1)), false},
		{policyExitCode, failedPod("p", code(143)), true},
		{policyExitCode, failedPod("p", nil), true}, // a missing exit code reads as 137
	} {
		if got := policyRestarts(tc.policy, tc.pod, s); got != tc.want {
			t.Errorf("policyRestarts(%s, %s) = %v, want %v", tc.policy, tc.pod.phase, got, tc.want)
		}
	}
}

func TestBackoffDelay(t *testing.T) { // §11 Q5: min(cap, base * 2^(n-1)) for the n-th restart
	s := defaultSettings() // 10 s doubling to 6 min
	for restarts, want := range []time.Duration{
		10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 320 * time.Second, 360 * time.Second, 360 * time.Second,
	} {
		if got := backoffDelay(int32(restarts), s); got != want {
			t.Errorf("backoffDelay(%d) = %v, want %v", restarts, got, want)
		}
	}
	if got := backoffDelay(1<<30, s); got != 6*time.Minute {
		t.Errorf("backoffDelay(2^30) = %v: the doubling must stop at the cap", got)
	}
}

func TestTerminalDeletions(t *testing.T) { // §6.1, §6.2
	pods := map[corev1.PodPhase]*observedPod{}
	for _, ph := range []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodUnknown,
		corev1.PodSucceeded, corev1.PodFailed} {
		pods[ph] = &observedPod{phase: ph}
	}
	gone := &observedPod{phase: corev1.PodRunning, terminating: true}
	for _, tc := range []struct {
		policy   string
		deadline bool
		want     map[corev1.PodPhase]string
	}{
		{"None", false, map[corev1.PodPhase]string{}},
		{"", false, map[corev1.PodPhase]string{}},
		{cleanUpAll, false, map[corev1.PodPhase]string{corev1.PodPending: reasonCleanup,
			corev1.PodRunning: reasonCleanup, corev1.PodUnknown: reasonCleanup,
			corev1.PodSucceeded: reasonCleanup, corev1.PodFailed: reasonCleanup}},
		{cleanUpUnfinished, false, map[corev1.PodPhase]string{corev1.PodPending: reasonCleanup,
			corev1.PodRunning: reasonCleanup, corev1.PodUnknown: reasonCleanup}},
		{"None", true, map[corev1.PodPhase]string{corev1.PodPending: reasonDeadline,
			corev1.PodRunning: reasonDeadline, corev1.PodUnknown: reasonDeadline}},
		{cleanUpAll, true, map[corev1.PodPhase]string{corev1.PodPending: reasonDeadline,
			corev1.PodRunning: reasonDeadline, corev1.PodUnknown: reasonDeadline,
			corev1.PodSucceeded: reasonCleanup, corev1.PodFailed: reasonCleanup}},
	} {
		var slots []slot
		var phases []corev1.PodPhase
		for ph, p := range pods {
			slots = append(slots, slot{pod: p, create: true, deleteReason: reasonRestart})
			phases = append(phases, ph)
		}
		slots = append(slots, slot{pod: gone}, slot{create: true})
		terminalDeletions(slots, tc.policy, tc.deadline)
		for i, ph := range phases {
			if got := slots[i].deleteReason; got != tc.want[ph] || slots[i].create {
				t.Errorf("%s deadline=%v: %s pod deleted %q, want %q", tc.policy, tc.deadline, ph, got, tc.want[ph])
			}
		}
		for _, s := range slots[len(phases):] {
			if s.deleteReason != "" || s.create {
				t.Errorf("%s: a terminating pod or a missing one is left alone, got %+v", tc.policy, s)
			}
		}
	}
}

func TestRuleText(t *testing.T) { // types sorted, ranks as strings in rule order (§3.1)
	got := ruleText(finishRule{"worker": {1, 0}, "master": {0}})
	if want := `{"master":["0"],"worker":["1","0"]}`; got != want {
		t.Errorf("ruleText = %s, want %s", got, want)
	}
	if got := ruleText(finishRule{"ps": {}}); got != `{"ps":[]}` {
		t.Errorf("ruleText of a rule without ranks = %s", got)
	}
}

// slotsOf builds the desired slots of types "master" (1) and "worker" (n) with the outcomes.
func slotsOf(outcomes ...outcome) ([]typeView, []slot) {
	types := []typeView{{typ: "master", replicas: 1}, {typ: "worker", replicas: int32(len(outcomes) - 1)}}
	var slots []slot
	for i, o := range outcomes {
		s := slot{typeIndex: 0, rank: 0, name: "j-master-0", desired: true, outcome: o}
		if i > 0 {
			s = slot{typeIndex: 1, rank: int32(i - 1), name: replicaName("j", "worker", int32(i-1)),
				desired: true, outcome: o}
		}
		slots = append(slots, s)
	}
	return types, slots
}

func TestDecideGeneric(t *testing.T) { // §3.1, §11 Q2, UC-1500
	const (
		act  = outcomeActive
		ok   = outcomeSucceededFinal
		fail = outcomeFailedFinal
	)
	succeeded := &verdict{succeeded: true, message: msgSucceeded}
	failed := func(msg string) *verdict { return &verdict{failedReason: "Failed", message: msg} }
	for _, tc := range []struct {
		name             string
		success, failure []finishRule
		outcomes         []outcome
		want             *verdict
	}{
		{"default rules, running", nil, nil, []outcome{act, ok}, nil},
		{"default rules, all succeeded", nil, nil, []outcome{ok, ok, ok}, succeeded},
		{"default rules, a failure names its replica", nil, nil, []outcome{ok, ok, fail},
			failed(`The job is failed with rule: {"worker":["1"]}`)},
		{"failure rule fulfilled", nil, []finishRule{{"master": {0}}, {"worker": {0, 1}}},
			[]outcome{act, fail, fail}, failed(`The job is failed with rule: {"worker":["0","1"]}`)},
		{"failure rule half fulfilled, success rule reachable", []finishRule{{"master": {0}}},
			[]finishRule{{"worker": {0, 1}}}, []outcome{act, fail, act}, nil},
		{"UC-1500: no success rule can be fulfilled", []finishRule{{"worker": {0}}},
			[]finishRule{{"worker": {0, 1}}}, []outcome{act, fail, act},
			failed("The job is failed because the restarts of j-worker-0 are exhausted and no success rule can be fulfilled")},
		{"UC-1500 without success rules", nil, []finishRule{{"master": {0}}},
			[]outcome{ok, act, fail},
			failed("The job is failed because the restarts of j-worker-1 are exhausted and no success rule can be fulfilled")},
		{"a success rule naming a missing rank is unreachable", []finishRule{{"worker": {7}}},
			[]finishRule{{"master": {0}}}, []outcome{act, fail},
			failed("The job is failed because the restarts of j-worker-0 are exhausted and no success rule can be fulfilled")},
		{"a success rule with a type and no ranks is reachable, never fulfilled",
			[]finishRule{{"worker": {}}}, []finishRule{{"master": {0}}}, []outcome{ok, fail}, nil},
		{"success rule fulfilled", []finishRule{{"master": {0}}}, nil, []outcome{ok, act}, succeeded},
		{"failure is evaluated before success", []finishRule{{"master": {0}}},
			[]finishRule{{"worker": {0}}}, []outcome{ok, fail},
			failed(`The job is failed with rule: {"worker":["0"]}`)},
		{"an empty failure rule is never fulfilled", nil, []finishRule{{}}, []outcome{act, act}, nil},
	} {
		types, slots := slotsOf(tc.outcomes...)
		got := decideGeneric(tc.success, tc.failure, types, slots)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
