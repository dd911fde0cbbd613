package plugin

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// A reconciler that reaches its pods through a client-go clientset, as controllers built on
// client-go's PodControl do: its reads see the observation and its writes become actions.
func TestClientsetIsServedInProcess(t *testing.T) {
	s, r := newToy(t)
	cs, err := kubernetes.NewForConfig(s.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	r.do = func(ctx context.Context, job *testJob) error {
		pods := cs.CoreV1().Pods("default")
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "owner=a"})
		if err != nil {
			return err
		}
		if len(list.Items) != 1 || list.Items[0].Name != "a-w-0" ||
			list.Items[0].Status.Phase != corev1.PodRunning {
			return fmt.Errorf("listed %+v", list.Items)
		}
		if none, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "owner=b"}); err != nil ||
			len(none.Items) != 0 {
			return fmt.Errorf("owner=b listed %v, %v", none, err)
		}
		if _, err := pods.Get(ctx, "nope", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("Get of a missing pod: %v", err)
		}
		if _, err := pods.Watch(ctx, metav1.ListOptions{}); !apierrors.IsMethodNotSupported(err) {
			return fmt.Errorf("Watch: %v", err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a-w-1", Labels: map[string]string{"owner": "a"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch.tensorstack.dev/v1beta1",
				Kind: "GenericJob", Name: job.Name, UID: job.UID, Controller: ptr(true)}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Command: []string{"train"}}}}}
		created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if created.Name != "a-w-1" || created.Namespace != "default" {
			return fmt.Errorf("created %s/%s", created.Namespace, created.Name)
		}
		if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("a second Create: %v", err)
		}
		return pods.Delete(ctx, "a-w-0", metav1.DeleteOptions{})
	}
	replies := exchange(t, s, initLine,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":1100000,`+
			`"jobs":[{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[`+
			podJSON("a-w-0", "pod-0", "Running")+`],"podGroup":null,"tensorBoard":null}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown","params":{}}`)
	if len(replies) < 2 {
		t.Fatalf("replies: %v", replies)
	}
	got := replies[1]
	for _, want := range []string{`"name":"a-w-1"`, `"type":"CreatePod"`,
		`{"name":"a-w-0","type":"DeletePod"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("the answer lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "error") {
		t.Errorf("the reconcile failed: %s", got)
	}
	// Outside a reconcile the clientset is refused, as the client is.
	if _, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{}); err == nil ||
		!strings.Contains(err.Error(), "only during a Reconcile") {
		t.Errorf("a List outside a reconcile: %v", err)
	}
}

// Writes through a clientset other than create and delete, and the refusals: a job's status
// (update and patch through the status subresource), a Service's update (kept by the SDK), a
// collection deleted by field selector, an eviction (fails the reconcile, as the client would).
func TestClientsetWritesAndRefusals(t *testing.T) {
	s, r := newToy(t)
	cfg := s.RESTConfig()
	for i := 0; i < 1000; i++ { // no client-side limit: a wait would be on the wall clock
		if !cfg.RateLimiter.TryAccept() {
			t.Fatalf("the rest.Config's rate limiter refused request %d", i)
		}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	evict := false
	r.do = func(ctx context.Context, job *testJob) error {
		pods := cs.CoreV1().Pods("default")
		if evict {
			return pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "a-w-0"}})
		}
		svc, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "a-master"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		svc.Labels = map[string]string{"seen": "yes"}
		if _, err := cs.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			return err
		}
		if _, err := cs.CoreV1().Services("default").Patch(ctx, "a-master", types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"patched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
			return err
		}
		got, err := cs.CoreV1().Services("default").Get(ctx, "a-master", metav1.GetOptions{})
		if err != nil || got.Labels["seen"] != "yes" || got.Labels["patched"] != "yes" {
			return fmt.Errorf("the Service read back: %v %v", got.Labels, err)
		}
		// Two pods match the label; the field selector keeps one.
		if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{},
			metav1.ListOptions{LabelSelector: "owner=a", FieldSelector: "metadata.name=a-w-1"}); err != nil {
			return err
		}
		// The job's status through the status subresource, as a REST client writes it.
		body := []byte(`{"status":{"phase":"Running"}}`)
		return cs.CoreV1().RESTClient().Patch(types.MergePatchType).
			AbsPath("/apis/batch.tensorstack.dev/v1beta1/namespaces/default/genericjobs/a/status").
			Body(body).Do(ctx).Error()
	}
	resync := `{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":1000,` +
		`"jobs":[{"uid":"job-0","resync":true,"job":` + jobJSON + `,"status":null,"pods":[` +
		podJSON("a-w-0", "pod-0", "Running") + `,` + podJSON("a-w-1", "pod-1", "Running") +
		`],"podGroup":null,"tensorBoard":null}]}}`
	replies := exchange(t, s, initLine, resync)
	want := `{"jsonrpc":"2.0","id":2,"result":{"results":[{"actions":[{"name":"a-w-1","type":"DeletePod"}],` +
		`"status":{"phase":"Running"},"uid":"job-0"}]}}`
	if len(replies) < 2 || replies[1] != want {
		t.Errorf("got %v\nwant %s", replies, want)
	}
	evict = true
	s2, r2 := newToy(t)
	r2.do = r.do
	cs, _ = kubernetes.NewForConfig(s2.RESTConfig())
	replies = exchange(t, s2, initLine, resync)
	if len(replies) < 2 || !strings.Contains(replies[1], `"error"`) ||
		!strings.Contains(replies[1], "the simulator has no eviction subresource") {
		t.Errorf("an eviction: %v", replies)
	}
}
