package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// toyReconciler keeps spec.replicas pods "<job>-w-<rank>", restarts failed ones, and reports in
// its status how many run: enough to exercise every kind of read and write the adapter maps.
type toyReconciler struct {
	c     ctrl.Client
	clock clock.PassiveClock
	seen  []string // what each reconcile saw, for the test
	do    func(ctx context.Context, job *testJob) error
}

func (r *toyReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var job testJob
	if err := r.c.Get(ctx, req.NamespacedName, &job); err != nil {
		return reconcile.Result{}, err
	}
	if r.do != nil {
		return reconcile.Result{}, r.do(ctx, &job)
	}
	var pods corev1.PodList
	if err := r.c.List(ctx, &pods, ctrl.InNamespace(req.Namespace),
		ctrl.MatchingLabels{"owner": job.Name}); err != nil {
		return reconcile.Result{}, err
	}
	have := map[string]bool{}
	running := 0
	for _, p := range pods.Items {
		have[p.Name] = true
		r.seen = append(r.seen, fmt.Sprintf("%s:%s:%s", p.Name, p.Status.Phase, DeletionReason(&p)))
		switch p.Status.Phase {
		case corev1.PodRunning:
			running++
		case corev1.PodFailed:
			if err := r.c.Delete(ctx, &p, DeleteReason("Restart")); err != nil {
				return reconcile.Result{}, err
			}
		}
	}
	for i := int32(0); i < job.Spec.Replicas; i++ {
		name := fmt.Sprintf("%s-w-%d", job.Name, i)
		if have[name] {
			continue
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"owner": job.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch.tensorstack.dev/v1beta1",
				Kind: "GenericJob", Name: job.Name, UID: job.UID, Controller: ptr(true)}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Command: []string{"train"}}}}}
		if err := r.c.Create(ctx, pod); err != nil {
			return reconcile.Result{}, err
		}
	}
	now := metav1.NewTime(r.clock.Now())
	if job.Status.StartTime == nil {
		job.Status.StartTime = &now
	}
	job.Status.Phase = "Pending"
	if running == int(job.Spec.Replicas) {
		job.Status.Phase = "Running"
	}
	job.Status.Conditions = []testCondition{{Type: "Running", Status: "True", LastTransitionTime: now}}
	if err := r.c.Status().Update(ctx, &job); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: 1500 * time.Microsecond}, nil
}

// exchange runs the server over the given requests (one per line) and returns its reply lines.
func exchange(t *testing.T, s *Server, requests ...string) []string {
	t.Helper()
	var out bytes.Buffer
	s.log = &bytes.Buffer{}
	if err := s.ServeIO(strings.NewReader(strings.Join(requests, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1",` +
	`"protocolVersions":["1","2"],"role":"controller","kinds":["GenericJob"],` +
	`"controllerOptions":{"retryableExitCodes":"t9k","t9kRetryableExitCodes":[130]}}}`

const jobJSON = `{"apiVersion":"batch.tensorstack.dev/v1beta1","kind":"GenericJob","metadata":` +
	`{"name":"a","namespace":"default","uid":"job-0","creationTimestamp":"1970-01-01T00:00:01Z"},` +
	`"spec":{"replicas":2}}`

func podJSON(name, uid, phase string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"default",` +
		`"uid":"` + uid + `","labels":{"owner":"a"},"creationTimestamp":"1970-01-01T00:00:01.100000Z"},` +
		`"spec":{"schedulerName":"default-scheduler","containers":[{"name":"main"}]},` +
		`"status":{"phase":"` + phase + `"},"t9ksim":{"job":"a","replicaType":"w","rank":0,"generation":0}}`
}

func newToy(t *testing.T) (*Server, *toyReconciler) {
	s := NewServer(testScheme())
	r := &toyReconciler{c: s.Client(), clock: s.Clock()}
	if err := s.Register("GenericJob", &testJob{}, r); err != nil {
		t.Fatal(err)
	}
	return s, r
}

func TestServeReconcile(t *testing.T) {
	s, r := newToy(t)
	replies := exchange(t, s, initLine,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"now":"x","nowMicros":1100000,`+
			`"jobs":[{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[`+
			podJSON("a-w-0", "pod-0", "Running")+`],"podGroup":null,"tensorBoard":null}]}}`,
		// The world created a-w-1; a-w-0 failed: a patch of its observed state only.
		`{"jsonrpc":"2.0","id":3,"method":"reconcile","params":{"nowMicros":2000001,"jobs":[`+
			`{"uid":"job-0","pods":[`+podJSON("a-w-1", "pod-1", "Pending")+`],`+
			`"podPatches":[{"metadata":{"uid":"pod-0"},"status":{"phase":"Failed"}}]}]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"shutdown","params":{}}`)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{},"name":"GenericJob-go","protocolVersion":"2"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"results":[{"actions":[{"pod":{"apiVersion":"v1","kind":"Pod",` +
			`"metadata":{"labels":{"owner":"a"},"name":"a-w-1","namespace":"default","ownerReferences":` +
			`[{"apiVersion":"batch.tensorstack.dev/v1beta1","controller":true,"kind":"GenericJob","name":"a",` +
			`"uid":"job-0"}]},"spec":{"containers":[{"command":["train"],"name":"c"}]},"status":{"phase":` +
			`"Pending"},"t9ksim":{"job":"a","rank":1,"replicaType":"w"}},"type":"CreatePod"}],` +
			`"requeueAfterMicros":1500,"status":{"conditions":[{"lastTransitionTime":` +
			`"1970-01-01T00:00:01.100000Z","status":"True","type":"Running"}],"phase":"Pending",` +
			`"startTime":"1970-01-01T00:00:01.100000Z"},"uid":"job-0"}]}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"results":[{"actions":[{"name":"a-w-0","reason":"Restart",` +
			`"type":"DeletePod"}],"requeueAfterMicros":1500,"status":{"conditions":[{"lastTransitionTime":` +
			`"1970-01-01T00:00:02.000001Z","status":"True","type":"Running"}],"phase":"Pending",` +
			`"startTime":"1970-01-01T00:00:01.100000Z"},"uid":"job-0"}]}}`,
		`{"jsonrpc":"2.0","id":4,"result":null}`,
	}
	for i := range want {
		if i >= len(replies) || replies[i] != want[i] {
			got := "(none)"
			if i < len(replies) {
				got = replies[i]
			}
			t.Errorf("reply %d:\n got %s\nwant %s", i+1, got, want[i])
		}
	}
	// The second reconcile saw the kept pod with the patch applied; the created pod is not kept
	// (it arrives from the world once created).
	if got := strings.Join(r.seen, " "); got != "a-w-0:Running: a-w-0:Failed: a-w-1:Pending:" {
		t.Errorf("the reconciler saw %q", got)
	}
	if s.Options().RetryableExitCodes != "t9k" || s.Options().T9kRetryableExitCodes[0] != 130 {
		t.Errorf("options: %+v", s.Options())
	}
}

func TestServeAsksForResyncWhenStateIsLost(t *testing.T) {
	s, _ := newToy(t)
	replies := exchange(t, s, initLine,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[`+
			`{"uid":"job-9","podPatches":[{"metadata":{"uid":"pod-0"},"status":{"phase":"Failed"}}]}]}}`)
	if want := `{"jsonrpc":"2.0","id":2,"result":{"results":[{"resync":true,"uid":"job-9"}]}}`; replies[1] != want {
		t.Errorf("got %s, want %s", replies[1], want)
	}
}

func TestWritesTheSimulatorCannotApply(t *testing.T) {
	resync := `{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[` +
		`{"uid":"job-0","resync":true,"job":` + jobJSON + `,"status":null,"pods":[` +
		podJSON("a-w-0", "pod-0", "Running") + `],"podGroup":null,"tensorBoard":null}]}}`
	for _, c := range []struct {
		name string
		do   func(ctx context.Context, c ctrl.Client, job *testJob) error
		want string
	}{
		{"spec change", func(ctx context.Context, c ctrl.Client, job *testJob) error {
			job.Spec.Replicas = 3
			return c.Update(ctx, job)
		}, "Update of GenericJob default/a: it changes the job's spec"},
		{"pod update", func(ctx context.Context, c ctrl.Client, job *testJob) error {
			var p corev1.Pod
			if err := c.Get(ctx, ctrl.ObjectKey{Namespace: "default", Name: "a-w-0"}, &p); err != nil {
				return err
			}
			p.Labels["x"] = "y"
			_ = c.Update(ctx, &p) // ignored by the reconciler: the run still fails
			return nil
		}, "Update of Pod default/a-w-0: the simulator cannot change a Pod in place"},
		{"create without owner", func(ctx context.Context, c ctrl.Client, job *testJob) error {
			return c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a-w-1"}})
		}, "Create of Pod default/a-w-1: it has no controller owner reference"},
		{"create of a deployment", func(ctx context.Context, c ctrl.Client, job *testJob) error {
			return c.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
		}, "Create of Deployment default/a: the simulator creates Pods, PodGroups and TensorBoards only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, r := newToy(t)
			r.do = func(ctx context.Context, job *testJob) error { return c.do(ctx, r.c, job) }
			replies := exchange(t, s, initLine, resync)
			if !strings.Contains(replies[1], `"error":{"code":-32603`) || !strings.Contains(replies[1], c.want) {
				t.Errorf("got %s\nwant an error containing %q", replies[1], c.want)
			}
		})
	}
}

func TestMetadataUpdatesAreKept(t *testing.T) {
	s, r := newToy(t)
	var saw []string
	r.do = func(ctx context.Context, job *testJob) error {
		saw = append(saw, strings.Join(job.Finalizers, ","))
		job.Finalizers = []string{"example.com/cleanup"}
		return r.c.Update(ctx, job)
	}
	exchange(t, s, initLine,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[`+
			`{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[],"podGroup":null,"tensorBoard":null}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"reconcile","params":{"nowMicros":6,"jobs":[{"uid":"job-0"}]}}`)
	if got := strings.Join(saw, "|"); got != "|example.com/cleanup" {
		t.Errorf("finalizers seen: %q", got)
	}
}

func TestClientOutsideReconcile(t *testing.T) {
	s, _ := newToy(t)
	err := s.Client().Get(context.Background(), ctrl.ObjectKey{Name: "a"}, &testJob{})
	if err == nil || !strings.Contains(err.Error(), "only during a Reconcile") {
		t.Errorf("got %v", err)
	}
}

func TestGetMissingIsNotFound(t *testing.T) {
	s, r := newToy(t)
	var got error
	r.do = func(ctx context.Context, job *testJob) error {
		got = r.c.Get(ctx, ctrl.ObjectKey{Namespace: "default", Name: "nope"}, &corev1.Pod{})
		return nil
	}
	exchange(t, s, initLine, `{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[`+
		`{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[],"podGroup":null,"tensorBoard":null}]}}`)
	if !apierrors.IsNotFound(got) {
		t.Errorf("got %v, want NotFound", got)
	}
}

func TestInitializeRefusals(t *testing.T) {
	for _, c := range []struct{ params, want string }{
		{`{"protocolVersions":["1"],"role":"controller","kinds":["GenericJob"]}`, "speaks protocol version 2"},
		{`{"protocolVersions":["1","2"],"role":"controller","kinds":["DeepSpeedJob"]}`,
			"asked to reconcile DeepSpeedJob; this plugin serves GenericJob"},
		{`{"protocolVersions":["1","2"],"role":"elasticPolicy","kinds":[]}`, "is a controller"},
	} {
		s, _ := newToy(t)
		replies := exchange(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+c.params+`}`)
		var m map[string]any
		json.Unmarshal([]byte(replies[0]), &m)
		e, _ := m["error"].(map[string]any)
		if e == nil || !strings.Contains(e["message"].(string), c.want) || e["code"].(float64) != codeInvalidParams {
			t.Errorf("initialize %s: got %s, want error %q", c.params, replies[0], c.want)
		}
	}
}

func TestResourceVersions(t *testing.T) {
	s, r := newToy(t)
	var errs []error
	r.do = func(ctx context.Context, job *testJob) error {
		stale := job.DeepCopyObject().(*testJob)
		job.Status.Phase = "Running"
		errs = append(errs, r.c.Status().Update(ctx, job)) // fine: the version read
		stale.Status.Phase = "Failed"
		errs = append(errs, r.c.Status().Update(ctx, stale)) // based on the older version
		errs = append(errs, r.c.Status().Update(ctx, job))   // job got the new version back
		return nil
	}
	replies := exchange(t, s, initLine, `{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[`+
		`{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[],"podGroup":null,"tensorBoard":null}]}}`)
	if errs[0] != nil || !apierrors.IsConflict(errs[1]) || errs[2] != nil {
		t.Errorf("got %v, want nil, Conflict, nil", errs)
	}
	if !strings.Contains(replies[1], `"status":{"phase":"Running"}`) {
		t.Errorf("the status written: %s", replies[1])
	}
}

func TestEventsAndMissingExitCodes(t *testing.T) {
	s, r := newToy(t)
	rec := s.EventRecorder("toy")
	var exit int32 = -1
	r.do = func(ctx context.Context, job *testJob) error {
		var p corev1.Pod
		if err := r.c.Get(ctx, ctrl.ObjectKey{Namespace: "default", Name: "a-w-0"}, &p); err != nil {
			return err
		}
		exit = p.Status.ContainerStatuses[0].State.Terminated.ExitCode
		rec.Eventf(job, corev1.EventTypeWarning, "Restarting", "pod %s exited %d", p.Name, exit)
		return nil
	}
	failed := strings.Replace(podJSON("a-w-0", "pod-0", "Failed"), `"phase":"Failed"`,
		`"phase":"Failed","containerStatuses":[{"name":"main","state":{"terminated":{}}}]`, 1)
	replies := exchange(t, s, initLine, `{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[`+
		`{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[`+failed+`],"podGroup":null,"tensorBoard":null}]}}`)
	if exit != missingExitCode {
		t.Errorf("a terminated container without an exit code read as %d, want %d", exit, missingExitCode)
	}
	want := `"events":[{"message":"pod a-w-0 exited 137","reason":"Restarting","type":"Warning"}]`
	if !strings.Contains(replies[1], want) {
		t.Errorf("got %s\nwant %s in it", replies[1], want)
	}
}

func TestReconcileLogsToThePluginLog(t *testing.T) {
	s, r := newToy(t)
	r.do = func(ctx context.Context, job *testJob) error {
		logf.FromContext(ctx).Info("reconciling", "replicas", job.Spec.Replicas)
		return nil
	}
	var log bytes.Buffer
	s.log = &log
	var out bytes.Buffer
	in := initLine + "\n" + `{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":5,"jobs":[` +
		`{"uid":"job-0","resync":true,"job":` + jobJSON + `,"status":null,"pods":[],"podGroup":null,"tensorBoard":null}]}}` + "\n"
	if err := s.ServeIO(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `"msg"="reconciling" "controllerKind"="GenericJob" "namespace"="default" "name"="a" "replicas"=2`
	if !strings.Contains(log.String(), want) {
		t.Errorf("the plugin log:\n%s\nwant a line with %s", log.String(), want)
	}
}
