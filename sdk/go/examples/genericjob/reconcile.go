package genericjob

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	schedulerv1beta1 "t9ksim.dev/sdk/api/scheduler/v1beta1"
)

// One reconcile of a GenericJob, decided without side effects: controllers/reconcile.cpp
// (Reconcile, reconcile_job) with the GenericJob view of controllers/kinds.cpp. The stages, in
// the built-in's order: the previous status carried over; the replica slots observed; a
// finished job only cleans up; a paused one stops its pods; resume; each slot's restart
// decision; ReplicaFailure; the job's verdict (§3.1); and for a live job its PodGroup, its
// missing pods and its phase. What the built-in does only for PyTorchTrainingJob and
// DeepSpeedJob (backoffLimit, activeDeadlineSeconds, elastic membership, TensorBoard) is left
// out: a GenericJob has none of them (§3.3).

// deletion is a pod to delete and why (a deletion reason, docs/protocol.md §6.2).
type deletion struct {
	name   string
	reason string
}

// plan is what one reconcile decided, in the order the Reconciler carries it out (the order of
// the built-in's actions): the PodGroup, the deletions, the creations; then the status.
type plan struct {
	// createPodGroup or updatePodGroup: at most one is set (§8.1).
	createPodGroup *schedulerv1beta1.PodGroup
	updatePodGroup *schedulerv1beta1.PodGroup
	// deletions: the pods of removed replica types first, then the slots', in slot order; a
	// name is free for its new pod only once its old pod is gone.
	deletions []deletion
	creations []*corev1.Pod
	status    batchv1beta1.JobStatus
	// requeueAfter: reconcile again then, even if nothing changes (a back-off, §11 Q5); 0: no.
	requeueAfter time.Duration
}

// step is one reconcile in progress.
type step struct {
	job      *batchv1beta1.GenericJob
	podGroup *schedulerv1beta1.PodGroup // the observed one, nil if none
	opts     settings
	now      time.Time
	types    []typeView
	// st is the new status, starting from the previous one (Reconcile::Reconcile).
	st      batchv1beta1.JobStatus
	obs     observation
	typeNow []int32 // each type's counted restarts after this step's decisions (§11 Q3)

	verdict     *verdict
	requeue     time.Duration // 0: none
	firstFailed *observedPod  // the first Failed pod in slot order (ReplicaFailure)
	out         plan
}

// newStep reads the job, its pods (in the world's creation order) and its PodGroup.
func newStep(job *batchv1beta1.GenericJob, pods []observedPod, podGroup *schedulerv1beta1.PodGroup,
	opts settings, now time.Time) *step {
	s := &step{job: job, podGroup: podGroup, opts: opts, now: now}
	for i := range job.Spec.ReplicaSpecs {
		s.types = append(s.types, typeOf(&job.Spec.ReplicaSpecs[i]))
	}
	// The previous status; tasks and aggregate are rebuilt from the slots.
	s.st = batchv1beta1.JobStatus(job.Status)
	s.st.Conditions = slices.Clone(s.st.Conditions)
	if s.st.Phase == "" { // first reconcile: the clocks start (§11 Q6)
		s.st.Phase = batchv1beta1.JobPhasePending
		s.st.StartTime = s.metaNow()
		s.st.ActiveSince = s.metaNow()
	}
	s.st.BackoffCount = nil // a GenericJob has no backoffCount (§1.3)
	s.obs = observe(job.Name, s.types, pods, priorCountsOf(&job.Status, s.types))
	s.typeNow = slices.Clone(s.obs.typePrev)
	return s
}

// typeOf is the view of one replica spec, with the API's defaults: 1 replica, OnFailure,
// limit 0 (§2.1).
func typeOf(r *batchv1beta1.ReplicaSpec) typeView {
	t := typeView{typ: r.Type, replicas: 1, policy: policyOnFailure, template: &r.Template}
	if r.Replicas != nil {
		t.replicas = *r.Replicas
	}
	if p := r.RestartPolicy; p != nil {
		if p.Policy != "" {
			t.policy = string(p.Policy)
		}
		if p.Limit != nil {
			t.limit = *p.Limit
		}
	}
	return t
}

// priorCountsOf reads the restart counts the previous status carries: per type the last task
// of the type, per rank the first replica of its name.
func priorCountsOf(st *batchv1beta1.GenericJobStatus, types []typeView) []*priorCounts {
	out := make([]*priorCounts, len(types))
	for ti, t := range types {
		for i := range st.Tasks {
			task := &st.Tasks[i]
			if task.Type != t.typ {
				continue
			}
			pc := &priorCounts{task: task.RestartCount, ranks: map[string]int32{}}
			for _, r := range task.Replicas {
				if _, seen := pc.ranks[r.Name]; !seen {
					pc.ranks[r.Name] = r.RestartCount
				}
			}
			out[ti] = pc
		}
	}
	return out
}

func (s *step) metaNow() *metav1.Time {
	t := metav1.NewTime(s.now)
	return &t
}

func (s *step) runMode() batchv1beta1.RunMode {
	if s.job.Spec.RunMode == nil {
		return batchv1beta1.RunMode{}
	}
	return *s.job.Spec.RunMode
}

func (s *step) pauseEnabled() bool {
	m := s.runMode()
	return m.Pause != nil && m.Pause.Enabled
}

func (s *step) debugEnabled() bool {
	m := s.runMode()
	return m.Debug != nil && m.Debug.Enabled
}

// run decides the reconcile (Reconcile::run).
func (s *step) run() plan {
	switch s.st.Phase {
	case batchv1beta1.JobPhaseSucceeded, batchv1beta1.JobPhaseFailed: // terminal: cleanup only (§1.1, §6.2)
		failed := findCondition(&s.st, batchv1beta1.JobConditionFailed)
		deadline := failed != nil && failed.Status == corev1.ConditionTrue &&
			failed.Reason == "DeadlineExceeded"
		terminalDeletions(s.obs.slots, string(s.job.Spec.CleanUpPolicy), deadline)
		return s.finish(false)
	}
	if s.pauseEnabled() { // §7.2: checked before anything else of a live job
		s.pause()
		return s.finish(false)
	}
	if s.st.Phase == batchv1beta1.JobPhasePaused {
		s.resume()
	}
	// A GenericJob has no activeDeadlineSeconds (§3.3): Reconcile::deadline does nothing.
	s.restartDecisions()
	s.replicaFailure()
	if s.verdict == nil && !s.debugEnabled() { // no rules in debug mode (§7.1, §11 Q19)
		s.verdict = decideGeneric(finishRules(s.job.Spec.SuccessRules),
			finishRules(s.job.Spec.FailureRules), s.types, s.obs.slots)
	}
	if s.verdict != nil {
		return s.conclude()
	}
	s.ensurePodGroup()
	for i := range s.obs.slots {
		sl := &s.obs.slots[i]
		sl.create = sl.desired && sl.outcome == outcomeMissing
	}
	s.liveConditions()
	s.out.requeueAfter = s.requeue
	return s.finish(true)
}

func finishRules(rules []batchv1beta1.FinishRule) []finishRule {
	out := make([]finishRule, len(rules))
	for i, r := range rules {
		out[i] = finishRule(r)
	}
	return out
}

// pause: graceful deletion of every pod not already terminating, terminated ones too; no
// restart nor verdict while paused; the deadline clock stops (§11 Q6). A job created paused
// goes Pending -> Paused in its first step and gets Initialized only on resume
// (docs/plugins.md §5, details 1 and 2).
func (s *step) pause() {
	for i := range s.obs.slots {
		if sl := &s.obs.slots[i]; sl.pod != nil && !sl.pod.terminating {
			sl.deleteReason = reasonPause
		}
	}
	s.st.Phase = batchv1beta1.JobPhasePaused
	s.st.ActiveSince = nil
	now := metav1.NewTime(s.now)
	setCondition(&s.st, batchv1beta1.JobConditionPaused, corev1.ConditionTrue, "Paused",
		"All replicas are deleted or being deleted.", now)
	if conditionIs(&s.st, batchv1beta1.JobConditionRunning, corev1.ConditionTrue) {
		setCondition(&s.st, batchv1beta1.JobConditionRunning, corev1.ConditionFalse, "Paused",
			"The job is paused.", now)
	}
}

// resume: Resuming until all replicas are back; the clock restarts (§11 Q6, Kubeflow reset).
func (s *step) resume() {
	s.st.Phase = batchv1beta1.JobPhaseResuming
	s.st.ActiveSince = s.metaNow()
	setCondition(&s.st, batchv1beta1.JobConditionPaused, corev1.ConditionFalse, "Resumed",
		"The job is resuming.", metav1.NewTime(s.now))
}

// restartDecisions decides each slot in slot order (type, then rank): a per-type limit is
// spent in that order (docs/plugins.md §5, detail 6).
func (s *step) restartDecisions() {
	for i := range s.obs.slots {
		s.restartDecision(&s.obs.slots[i])
	}
}

// restartDecision: Reconcile::restart_decision for a GenericJob (§2, §11 Q3-Q5, Q12, Q13).
func (s *step) restartDecision(sl *slot) {
	p := sl.pod
	if p == nil {
		sl.outcome = outcomeMissing
		return
	}
	if p.phase == corev1.PodFailed && s.firstFailed == nil {
		s.firstFailed = p // terminating and undesired pods count too
	}
	switch {
	case p.terminating:
		sl.outcome = outcomeTerminating
		return
	case !sl.desired:
		sl.outcome, sl.deleteReason = outcomeScaledDown, reasonScaleDown
		return
	case unfinished(p):
		sl.outcome = outcomeActive // Unknown pods are left alone (§9, §11 Q13)
		return
	}
	failed := p.phase == corev1.PodFailed
	if failed && p.deletionReason == reasonMaxDuration { // §11 Q12
		if s.opts.recreateMaxDuration {
			sl.outcome, sl.deleteReason = outcomeRecreate, reasonRestart
		} else {
			sl.outcome = outcomeFailedFinal
		}
		return
	}
	final := outcomeSucceededFinal
	if failed {
		final = outcomeFailedFinal
	}
	t := &s.types[sl.typeIndex]
	if !policyRestarts(t.policy, p, s.opts) {
		sl.outcome = final
		return
	}
	// §2.3, §11 Q3: restartPolicy.limit per rank, or per replica type.
	used := sl.restarts
	if s.opts.perTypeLimit {
		used = s.typeNow[sl.typeIndex]
	}
	if used >= t.limit {
		sl.outcome = final
		return
	}
	if s.opts.restartBackoff { // §11 Q5: wait from the pod's end (docs/plugins.md §5, detail 5)
		since := s.now
		if p.finishedAt != nil {
			since = *p.finishedAt
		}
		if at := since.Add(backoffDelay(sl.restarts, s.opts)); s.now.Before(at) {
			sl.outcome = outcomeBackoffWait
			s.requeueIn(at.Sub(s.now))
			return
		}
	}
	sl.outcome, sl.deleteReason = outcomeRestart, reasonRestart
	sl.restarts++
	s.typeNow[sl.typeIndex]++
}

// requeueIn asks for a reconcile after d at the latest.
func (s *step) requeueIn(d time.Duration) {
	if s.requeue == 0 || d < s.requeue {
		s.requeue = d
	}
}

// replicaFailure: ReplicaFailure=True once a pod is seen Failed (the first in slot order); it
// stays True after a successful restart (§1.2 [UNSPEC], sticky).
func (s *step) replicaFailure() {
	p := s.firstFailed
	if p == nil {
		return
	}
	setCondition(&s.st, batchv1beta1.JobConditionReplicaFailure, corev1.ConditionTrue, "ErrorInPod",
		"Pod["+p.name+"] exited with error code "+itoa(p.exitCodeOrKill()), metav1.NewTime(s.now))
}

// conclude: the job finished now. Restarts decided in this step are neither carried out nor
// counted (only the Kubeflow backoff rule keeps them, and a GenericJob has no backoffLimit).
func (s *step) conclude() plan {
	v := s.verdict
	s.st.Phase = batchv1beta1.JobPhaseFailed
	if v.succeeded {
		s.st.Phase = batchv1beta1.JobPhaseSucceeded
	}
	s.st.CompletionTime = s.metaNow()
	s.st.ActiveSince = nil
	applyTerminalConditions(&s.st, v, metav1.NewTime(s.now))
	terminalDeletions(s.obs.slots, string(s.job.Spec.CleanUpPolicy),
		v.failedReason == "DeadlineExceeded")
	return s.finish(false)
}

// liveConditions: Initialized, ReplicaFailure False and, once the pods run, Running (§11 Q1).
func (s *step) liveConditions() {
	now := metav1.NewTime(s.now)
	setCondition(&s.st, batchv1beta1.JobConditionInitialized, corev1.ConditionTrue, "",
		"All sub-resources are created.", now)
	if findCondition(&s.st, batchv1beta1.JobConditionReplicaFailure) == nil {
		setCondition(&s.st, batchv1beta1.JobConditionReplicaFailure, corev1.ConditionFalse, "",
			msgAllRunning, now)
	}
	if s.st.Phase != batchv1beta1.JobPhasePending && s.st.Phase != batchv1beta1.JobPhaseResuming {
		return // Running never goes back to Pending when a pod is replaced
	}
	desired, running, masterRunning := 0, 0, false
	for i := range s.obs.slots {
		sl := &s.obs.slots[i]
		if !sl.desired {
			continue
		}
		desired++
		if runningNow(sl) {
			running++
			masterRunning = masterRunning || (sl.typeIndex == 0 && sl.rank == 0)
		}
	}
	isRunning := desired > 0 && running == desired
	if s.opts.masterRunning {
		isRunning = masterRunning
	}
	if isRunning {
		s.st.Phase = batchv1beta1.JobPhaseRunning
		setCondition(&s.st, batchv1beta1.JobConditionRunning, corev1.ConditionTrue, "Running",
			msgAllRunning, now)
	}
}

// finish gives the plan: deletions (strays first, then slots), then creations, then the status
// built from the slots; this step's restart counts are kept only with commit
// (Reconcile::finish). Pods created after a pause use resumeSpecs (§7.2): the job has been
// paused when its status has a Paused condition.
func (s *step) finish(commit bool) plan {
	for _, name := range s.obs.stray {
		s.out.deletions = append(s.out.deletions, deletion{name, reasonScaleDown})
	}
	for i := range s.obs.slots {
		if sl := &s.obs.slots[i]; sl.deleteReason != "" {
			s.out.deletions = append(s.out.deletions, deletion{sl.name, sl.deleteReason})
		}
	}
	resumed := findCondition(&s.st, batchv1beta1.JobConditionPaused) != nil
	for i := range s.obs.slots {
		if sl := &s.obs.slots[i]; sl.create {
			s.out.creations = append(s.out.creations,
				newPod(s.job, &s.types[sl.typeIndex], sl, resumed))
		}
	}
	replicaStatuses(&s.st, s.types, &s.obs, s.typeNow, commit)
	s.out.status = s.st
	return s.out
}
