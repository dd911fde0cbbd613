package genericjob

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	schedulerv1beta1 "t9ksim.dev/sdk/api/scheduler/v1beta1"
	"t9ksim.dev/sdk/plugin"
)

// GenericJobReconciler reconciles a GenericJob: it keeps one pod per replica (§1.3), restarts
// them as their restart policies allow (§2), decides the job's end by its success and failure
// rules (§3.1), pauses and resumes it (§7.2) and keeps its PodGroup for the T9k scheduler
// (§8.1).
type GenericJobReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// Clock gives the time the controller decides at: conditions' transition times, the
	// job's start and completion, restart back-off. Under the simulator it is the simulated
	// time; the controller never reads the wall clock.
	Clock clock.PassiveClock
	// Options are the scenario's controller options (docs/protocol.md §6.5), read at each
	// reconcile; nil: the simulator's defaults.
	Options func() plugin.ControllerOptions
	// Recorder, when set, records an event for each pod created or deleted, as Kubernetes'
	// own job controllers do (under the simulator: events.jsonl, ControllerEvent).
	Recorder record.EventRecorder
}

// +kubebuilder:rbac:groups=batch.tensorstack.dev,resources=genericjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.tensorstack.dev,resources=genericjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=scheduler.tensorstack.dev,resources=podgroups,verbs=get;list;watch;create;update

// Reconcile observes the job, its pods and its PodGroup, decides (step.run) and carries the
// decisions out in the built-in's order: the PodGroup, the deletions, the creations, then the
// status. It is level-based: every decision comes from what it observes and from the job's own
// status, which holds all it remembers (docs/plugins.md §3).
func (r *GenericJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var job batchv1beta1.GenericJob
	if err := r.Get(ctx, req.NamespacedName, &job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	pods, err := r.ownedPods(ctx, &job)
	if err != nil {
		return ctrl.Result{}, err
	}
	podGroup, err := r.podGroup(ctx, &job)
	if err != nil {
		return ctrl.Result{}, err
	}
	observed := make([]observedPod, len(pods))
	for i := range pods {
		observed[i] = observePod(pods[i])
	}

	p := newStep(&job, observed, podGroup, r.settings(), r.Clock.Now()).run()

	if p.createPodGroup != nil {
		if err := r.Create(ctx, p.createPodGroup); err != nil {
			return ctrl.Result{}, fmt.Errorf("creating PodGroup %s: %w", p.createPodGroup.Name, err)
		}
	}
	if p.updatePodGroup != nil {
		if err := r.Update(ctx, p.updatePodGroup); err != nil {
			return ctrl.Result{}, fmt.Errorf("updating PodGroup %s: %w", p.updatePodGroup.Name, err)
		}
	}
	byName := map[string]*corev1.Pod{}
	for _, pod := range pods {
		if _, dup := byName[pod.Name]; !dup {
			byName[pod.Name] = pod
		}
	}
	for _, d := range p.deletions {
		log.V(1).Info("deleting pod", "pod", d.name, "reason", d.reason)
		err := r.Delete(ctx, byName[d.name], plugin.DeleteReason(d.reason))
		if client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting pod %s (%s): %w", d.name, d.reason, err)
		}
		r.event(&job, "SuccessfulDeletePod", "Deleted pod: %s (%s)", d.name, d.reason)
	}
	for _, pod := range p.creations {
		log.V(1).Info("creating pod", "pod", pod.Name)
		if err := r.Create(ctx, pod); err != nil {
			return ctrl.Result{}, fmt.Errorf("creating pod %s: %w", pod.Name, err)
		}
		r.event(&job, "SuccessfulCreatePod", "Created pod: %s", pod.Name)
	}
	// Status().Update only when the status changed: an unchanged status need not be written.
	if status := batchv1beta1.GenericJobStatus(p.status); !equality.Semantic.DeepEqual(job.Status, status) {
		job.Status = status
		if err := r.Status().Update(ctx, &job); err != nil {
			return ctrl.Result{}, fmt.Errorf("updating the status: %w", err)
		}
	}
	return ctrl.Result{RequeueAfter: p.requeueAfter}, nil
}

func (r *GenericJobReconciler) event(job *batchv1beta1.GenericJob, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(job, corev1.EventTypeNormal, reason, format, args...)
	}
}

// ownedPods lists the job's pods, in the order the API (the simulator: the world's creation
// order) gives them: those with the job's owner-name label (§10) whose controller is the job.
func (r *GenericJobReconciler) ownedPods(ctx context.Context, job *batchv1beta1.GenericJob) ([]*corev1.Pod, error) {
	var list corev1.PodList
	if err := r.List(ctx, &list, client.InNamespace(job.Namespace),
		client.MatchingLabels{labelOwnerName: job.Name}); err != nil {
		return nil, fmt.Errorf("listing the pods: %w", err)
	}
	var pods []*corev1.Pod
	for i := range list.Items {
		if pod := &list.Items[i]; metav1.IsControlledBy(pod, job) {
			pods = append(pods, pod)
		}
	}
	return pods, nil
}

// podGroup is the job's PodGroup (named after it, §8.1), nil if it has none or needs none.
func (r *GenericJobReconciler) podGroup(ctx context.Context, job *batchv1beta1.GenericJob) (*schedulerv1beta1.PodGroup, error) {
	if t9kScheduler(job) == nil {
		return nil, nil
	}
	var pg schedulerv1beta1.PodGroup
	err := r.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, &pg)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting the PodGroup: %w", err)
	}
	return &pg, nil
}

// settings decodes the controller options this controller reads.
func (r *GenericJobReconciler) settings() settings {
	if r.Options == nil {
		return defaultSettings()
	}
	return settingsFrom(r.Options())
}

// settingsFrom reads the controller options (docs/protocol.md §6.5).
func settingsFrom(o plugin.ControllerOptions) settings {
	return settings{
		kubeflowRetryable:   o.RetryableExitCodes == optionKubeflow,
		t9kRetryable:        o.T9kRetryableExitCodes,
		restartBackoff:      o.RestartBackoff,
		backoffBase:         time.Duration(o.RestartBackoffBaseMicros) * time.Microsecond,
		backoffCap:          time.Duration(o.RestartBackoffCapMicros) * time.Microsecond,
		recreateMaxDuration: o.MaxDurationHandling == optionRecreate,
		masterRunning:       o.RunningWhen == optionMasterRunning,
		perTypeLimit:        o.GenericLimitScope == optionPerType,
	}
}

// SetupWithManager registers the controller with a manager: it watches GenericJobs and the
// pods and PodGroups they control.
func (r *GenericJobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&batchv1beta1.GenericJob{}).
		Owns(&corev1.Pod{}).
		Owns(&schedulerv1beta1.PodGroup{}).
		Named("genericjob").
		Complete(r)
}
