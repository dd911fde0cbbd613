package genericjob

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	schedulerv1beta1 "t9ksim.dev/sdk/api/scheduler/v1beta1"
	"t9ksim.dev/sdk/plugin"
)

func i32(n int32) *int32 { return &n }

// testJob is a GenericJob "j" of `workers` workers, OnFailure with the limit, on the T9k
// scheduler when queue is not "-".
func testJob(workers, limit int32, queue string) *batchv1beta1.GenericJob {
	job := &batchv1beta1.GenericJob{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "default", UID: "job-0"},
		Spec: batchv1beta1.GenericJobSpec{ReplicaSpecs: []batchv1beta1.ReplicaSpec{{
			Type: "worker", Replicas: i32(workers),
			RestartPolicy: &batchv1beta1.RestartPolicy{Policy: batchv1beta1.RestartPolicyOnFailure, Limit: i32(limit)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "a", labelGenericJob: "overridden"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "trainer", Command: []string{"python", "train.py"},
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("4")}}}}},
			},
		}}},
	}
	if queue != "-" {
		job.Spec.Scheduler = &batchv1beta1.SchedulePolicy{T9kScheduler: &batchv1beta1.T9kScheduler{Queue: queue}}
	}
	return job
}

func worker(rank int32, phase corev1.PodPhase) observedPod {
	p := observedPod{name: replicaName("j", "worker", rank), uid: "pod-" + itoa(rank), job: "j",
		replicaType: "worker", rank: rank, phase: phase, nodeName: "gpu-0"}
	if phase == corev1.PodFailed {
		p.exitCode = code(1)
		end := time.Unix(100, 0)
		p.finishedAt = &end
	}
	return p
}

func reconcileAt(job *batchv1beta1.GenericJob, pods []observedPod, pg *schedulerv1beta1.PodGroup,
	s settings, sec int64) plan {
	return newStep(job, pods, pg, s, time.Unix(sec, 0).UTC()).run()
}

func TestFirstReconcile(t *testing.T) {
	job := testJob(2, 0, "")
	p := reconcileAt(job, nil, nil, defaultSettings(), 1)
	if p.createPodGroup == nil || p.createPodGroup.Name != "j" || p.createPodGroup.Spec.MinMember != 2 ||
		p.createPodGroup.Spec.Queue != defaultQueue || *p.createPodGroup.Spec.Priority != 0 ||
		len(p.createPodGroup.Spec.Roles) != 1 || p.createPodGroup.Spec.Roles[0] != (schedulerv1beta1.Role{Name: "worker", MinMember: 2}) {
		t.Errorf("PodGroup %+v", p.createPodGroup)
	}
	if len(p.creations) != 2 || len(p.deletions) != 0 {
		t.Fatalf("creations %d deletions %v", len(p.creations), p.deletions)
	}
	pod := p.creations[1]
	wantLabels := map[string]string{"team": "a", labelGenericJob: "j", labelGenericJobReplica: "j-worker-1",
		labelGroupName: "j", labelQueue: "default", labelRole: "worker", labelComponent: "genericjob",
		labelComponentType: "user", labelOwnerName: "j"}
	if pod.Name != "j-worker-1" || pod.Namespace != "default" || pod.Spec.SchedulerName != t9kSchedulerName ||
		len(pod.Labels) != len(wantLabels) || !metav1.IsControlledBy(pod, job) ||
		pod.Annotations[plugin.AnnotationRank] != "1" || pod.Annotations[plugin.AnnotationReplicaType] != "worker" {
		t.Errorf("pod %+v", pod.ObjectMeta)
	}
	for k, v := range wantLabels {
		if pod.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, pod.Labels[k], v)
		}
	}
	st := p.status
	if st.Phase != batchv1beta1.JobPhasePending || st.StartTime == nil || st.ActiveSince == nil ||
		st.Aggregate.Creating != 2 || len(st.Tasks) != 1 || len(st.Tasks[0].Replicas) != 2 {
		t.Errorf("status %+v", st)
	}
	if got := conditionTypes(&st); len(got) != 2 || got[0] != batchv1beta1.JobConditionInitialized ||
		got[1] != batchv1beta1.JobConditionReplicaFailure {
		t.Errorf("conditions %v", got)
	}
}

func TestRunningAndPodGroupKept(t *testing.T) {
	job := testJob(2, 0, "")
	first := reconcileAt(job, nil, nil, defaultSettings(), 1)
	job.Status = batchv1beta1.GenericJobStatus(first.status)
	pg := first.createPodGroup
	pg.Spec.TopologyPolicy = "rack"
	pods := []observedPod{worker(0, corev1.PodRunning), worker(1, corev1.PodRunning)}
	p := reconcileAt(job, pods, pg, defaultSettings(), 5)
	if p.updatePodGroup != nil || p.createPodGroup != nil || len(p.creations)+len(p.deletions) != 0 {
		t.Errorf("nothing to do, got %+v", p)
	}
	if p.status.Phase != batchv1beta1.JobPhaseRunning || p.status.Aggregate.Running != 2 ||
		!conditionIs(&p.status, batchv1beta1.JobConditionRunning, corev1.ConditionTrue) {
		t.Errorf("status %+v", p.status)
	}
	// A new queue updates the PodGroup in place, its topologyPolicy kept (§8.1, §11 Q20).
	job.Spec.Scheduler.T9kScheduler.Queue = "research"
	p = reconcileAt(job, pods, pg, defaultSettings(), 6)
	if p.updatePodGroup == nil || p.updatePodGroup.Spec.Queue != "research" ||
		p.updatePodGroup.Spec.TopologyPolicy != "rack" || !p.updatePodGroup.CreationTimestamp.Equal(&pg.CreationTimestamp) {
		t.Errorf("update %+v", p.updatePodGroup)
	}
}

func TestPerTypeLimitSlotOrder(t *testing.T) { // docs/plugins.md §5, detail 6
	job := testJob(3, 1, "-")
	job.Status.Phase = batchv1beta1.JobPhaseRunning
	s := defaultSettings()
	s.perTypeLimit = true
	pods := []observedPod{worker(0, corev1.PodRunning), worker(1, corev1.PodFailed), worker(2, corev1.PodFailed)}
	p := reconcileAt(job, pods, nil, s, 200)
	// rank 1 takes the type's one restart; rank 2 has failed for good, and with the default
	// rules the job fails, so the restart is neither carried out nor counted.
	if p.status.Phase != batchv1beta1.JobPhaseFailed || len(p.deletions) != 0 ||
		p.status.Tasks[0].RestartCount != 0 {
		t.Errorf("plan %+v", p)
	}
	if c := findCondition(&p.status, batchv1beta1.JobConditionFailed); c == nil ||
		c.Message != `The job is failed with rule: {"worker":["2"]}` {
		t.Errorf("Failed condition %+v", c)
	}
	// Per replica, both restart.
	p = reconcileAt(job, pods, nil, defaultSettings(), 200)
	if len(p.deletions) != 2 || p.deletions[0] != (deletion{"j-worker-1", reasonRestart}) ||
		p.status.Tasks[0].RestartCount != 2 || p.status.Tasks[0].Replicas[2].RestartCount != 1 {
		t.Errorf("per replica: deletions %v tasks %+v", p.deletions, p.status.Tasks)
	}
	if c := findCondition(&p.status, batchv1beta1.JobConditionReplicaFailure); c == nil ||
		c.Message != "Pod[j-worker-1] exited with error code 1" || c.Reason != "ErrorInPod" {
		t.Errorf("ReplicaFailure %+v", c)
	}
}

func TestBackoffRequeue(t *testing.T) { // §11 Q5: wait from the pod's end, requeue until then
	job := testJob(1, 3, "-")
	job.Status.Phase = batchv1beta1.JobPhaseRunning
	s := defaultSettings()
	s.restartBackoff = true
	pods := []observedPod{worker(0, corev1.PodFailed)} // ended at 100 s
	p := reconcileAt(job, pods, nil, s, 104)
	if len(p.deletions) != 0 || p.requeueAfter != 6*time.Second || p.status.Tasks[0].Replicas[0].Phase != corev1.PodFailed {
		t.Errorf("waiting: deletions %v requeue %v", p.deletions, p.requeueAfter)
	}
	p = reconcileAt(job, pods, nil, s, 110)
	if len(p.deletions) != 1 || p.requeueAfter != 0 || p.status.Tasks[0].RestartCount != 1 {
		t.Errorf("after the back-off: deletions %v requeue %v", p.deletions, p.requeueAfter)
	}
}

func TestPauseAndResume(t *testing.T) { // §7.2, docs/plugins.md §5 details 1-2
	job := testJob(1, 0, "-")
	job.Status.Phase = batchv1beta1.JobPhaseRunning
	setCondition((*batchv1beta1.JobStatus)(&job.Status), batchv1beta1.JobConditionRunning,
		corev1.ConditionTrue, "Running", msgAllRunning, at(1))
	job.Spec.RunMode = &batchv1beta1.RunMode{Pause: &batchv1beta1.PauseMode{Enabled: true,
		ResumeSpecs: []batchv1beta1.ResumeSpec{{Type: "worker", Args: []string{"--resume"}}}}}
	p := reconcileAt(job, []observedPod{worker(0, corev1.PodRunning)}, nil, defaultSettings(), 10)
	if p.status.Phase != batchv1beta1.JobPhasePaused || len(p.deletions) != 1 || p.deletions[0].reason != reasonPause ||
		p.status.ActiveSince != nil || !conditionIs(&p.status, batchv1beta1.JobConditionRunning, corev1.ConditionFalse) ||
		!conditionIs(&p.status, batchv1beta1.JobConditionPaused, corev1.ConditionTrue) {
		t.Errorf("pause: %+v", p)
	}
	job.Status = batchv1beta1.GenericJobStatus(p.status)
	job.Spec.RunMode.Pause.Enabled = false
	p = reconcileAt(job, nil, nil, defaultSettings(), 20)
	if p.status.Phase != batchv1beta1.JobPhaseResuming || len(p.creations) != 1 ||
		!conditionIs(&p.status, batchv1beta1.JobConditionPaused, corev1.ConditionFalse) ||
		p.status.ActiveSince.Unix() != 20 {
		t.Fatalf("resume: %+v", p)
	}
	if c := p.creations[0].Spec.Containers[0]; len(c.Args) != 1 || c.Args[0] != "--resume" || c.Command[0] != "python" {
		t.Errorf("resumed pod's container %+v: want resumeSpecs' args over the template's command", c)
	}
}

func TestDebugMode(t *testing.T) { // §7.1: the debug command, no rules
	job := testJob(1, 0, "-")
	job.Spec.RunMode = &batchv1beta1.RunMode{Debug: &batchv1beta1.DebugMode{Enabled: true}}
	job.Spec.ReplicaSpecs[0].Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	job.Spec.ReplicaSpecs[0].Template.Spec.Containers[0].Args = []string{"--epochs", "3"}
	p := reconcileAt(job, nil, nil, defaultSettings(), 1)
	pod := p.creations[0]
	if c := pod.Spec.Containers[0]; len(c.Command) != 2 || c.Command[0] != "sleep" || len(c.Args) != 0 ||
		pod.Annotations[plugin.AnnotationDebug] != "true" || len(pod.Spec.InitContainers) != 1 ||
		pod.Spec.SchedulerName != defaultSchedulerName {
		t.Errorf("debug pod %+v", pod)
	}
	job.Status = batchv1beta1.GenericJobStatus(p.status)
	p = reconcileAt(job, []observedPod{worker(0, corev1.PodFailed)}, nil, defaultSettings(), 2)
	if p.status.Phase == batchv1beta1.JobPhaseFailed {
		t.Errorf("debug mode evaluates no rules")
	}
}

func TestTerminalJobCleansUp(t *testing.T) { // §6.2, repeated until done
	job := testJob(2, 0, "-")
	job.Spec.CleanUpPolicy = batchv1beta1.CleanUpPolicyUnfinished
	job.Status.Phase = batchv1beta1.JobPhaseSucceeded
	p := reconcileAt(job, []observedPod{worker(0, corev1.PodSucceeded), worker(1, corev1.PodRunning)}, nil,
		defaultSettings(), 9)
	if len(p.deletions) != 1 || p.deletions[0] != (deletion{"j-worker-1", reasonCleanup}) || len(p.creations) != 0 ||
		p.status.Phase != batchv1beta1.JobPhaseSucceeded {
		t.Errorf("plan %+v", p)
	}
}
