package genericjob

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"t9ksim.dev/sdk/plugin"
)

func TestObservePod(t *testing.T) { // decode_pod
	finished := metav1.NewTime(time.Unix(100, 5000).UTC())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "j-worker-1", UID: "pod-3", Annotations: map[string]string{
			plugin.AnnotationJob: "j", plugin.AnnotationReplicaType: "worker", plugin.AnnotationRank: "1",
			plugin.AnnotationDeletionReason: reasonMaxDuration}},
		Spec: corev1.PodSpec{NodeName: "gpu-0"},
		Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
			{Name: "b", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, FinishedAt: finished}}},
			{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 9}}},
		}},
	}
	o := observePod(pod)
	if o.name != "j-worker-1" || o.uid != "pod-3" || o.job != "j" || o.replicaType != "worker" ||
		o.rank != 1 || o.nodeName != "gpu-0" || o.terminating || o.deletionReason != reasonMaxDuration {
		t.Errorf("observed %+v", o)
	}
	if o.exitCodeOrKill() != 2 || o.finishedAt == nil || !o.finishedAt.Equal(finished.Time) {
		t.Errorf("exit code %d finished %v: want the first terminated container's", o.exitCodeOrKill(), o.finishedAt)
	}

	// Without the simulator's annotations: the job from the controller reference, Pending.
	gone := metav1.NewTime(time.Unix(50, 0))
	bare := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", DeletionTimestamp: &gone,
		OwnerReferences: []metav1.OwnerReference{{Name: "owner", Controller: new(bool)},
			{Name: "j", Controller: func() *bool { b := true; return &b }()}}}}
	if o := observePod(bare); o.job != "j" || o.phase != corev1.PodPending || !o.terminating || o.exitCode != nil {
		t.Errorf("bare pod observed %+v", o)
	}
}

func TestObserveSlots(t *testing.T) { // §1.3: desired ranks, then ranks beyond them with a pod
	types := []typeView{{typ: "master", replicas: 1}, {typ: "worker", replicas: 2}}
	pods := []observedPod{
		{name: "j-worker-5", job: "j", replicaType: "worker", rank: 5},
		{name: "j-worker-1", job: "j", replicaType: "worker", rank: 1, uid: "first"},
		{name: "j-worker-1", job: "j", replicaType: "worker", rank: 1, uid: "second"},
		{name: "j-ps-0", job: "j", replicaType: "ps", rank: 0},
		{name: "j-ps-1", job: "j", replicaType: "ps", rank: 1, terminating: true},
		{name: "j-worker-3", job: "j", replicaType: "worker", rank: 3},
		{name: "j-worker-x", job: "j", replicaType: "worker", rank: 3},
		{name: "other-worker-0", job: "other", replicaType: "worker", rank: 0},
	}
	prior := []*priorCounts{nil, {task: 4, ranks: map[string]int32{"j-worker-1": 2, "j-worker-3": 1}}}
	obs := observe("j", types, pods, prior)
	want := []struct {
		name    string
		rank    int32
		desired bool
		restart int32
		podUID  string
	}{
		{"j-master-0", 0, true, 0, "-"},
		{"j-worker-0", 0, true, 0, "-"},
		{"j-worker-1", 1, true, 2, "first"},
		{"j-worker-3", 3, false, 1, ""}, // of two pods of rank 3 the first by name
		{"j-worker-5", 5, false, 0, ""},
	}
	if len(obs.slots) != len(want) {
		t.Fatalf("slots %+v", obs.slots)
	}
	for i, w := range want {
		s := obs.slots[i]
		if s.name != w.name || s.rank != w.rank || s.desired != w.desired || s.restarts != w.restart ||
			s.prevRestarts != w.restart || (w.podUID == "-") != (s.pod == nil) ||
			(s.pod != nil && s.pod.uid != w.podUID) {
			t.Errorf("slot %d = %+v (pod %+v), want %+v", i, s, s.pod, w)
		}
	}
	if len(obs.stray) != 1 || obs.stray[0] != "j-ps-0" {
		t.Errorf("stray %v, want [j-ps-0] (a terminating one is left alone)", obs.stray)
	}
	if obs.typePrev[0] != 0 || obs.typePrev[1] != 4 {
		t.Errorf("typePrev %v", obs.typePrev)
	}
}
