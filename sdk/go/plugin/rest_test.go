package plugin

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
