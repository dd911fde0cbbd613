package plugin

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
)

// A job's Service lives in the SDK from one reconcile to the next, without an action: created,
// read back and changed, listed, deleted, then gone.
func TestServicesAreKeptForTheJob(t *testing.T) {
	s, r := newToy(t)
	step := 0
	var trace []string
	r.do = func(ctx context.Context, job *testJob) error {
		step++
		key := ctrl.ObjectKey{Namespace: "default", Name: "a-master"}
		var svc corev1.Service
		err := r.c.Get(ctx, key, &svc)
		switch step {
		case 1:
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("step 1: %v", err)
			}
			return r.c.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "a-master",
				Labels: map[string]string{"owner": "a"}}, Spec: corev1.ServiceSpec{ClusterIP: "None"}})
		case 2:
			if err != nil || svc.Spec.ClusterIP != "None" {
				return fmt.Errorf("step 2: %v %+v", err, svc.Spec)
			}
			svc.Labels["seen"] = "yes"
			return r.c.Update(ctx, &svc)
		case 3:
			var list corev1.ServiceList
			if err := r.c.List(ctx, &list, ctrl.MatchingLabels{"seen": "yes"}); err != nil {
				return err
			}
			trace = append(trace, fmt.Sprintf("listed %d", len(list.Items)))
			return r.c.Delete(ctx, &svc)
		default:
			trace = append(trace, fmt.Sprintf("after delete: not found %v", apierrors.IsNotFound(err)))
			return nil
		}
	}
	line := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"reconcile","params":{"nowMicros":%d,`+
			`"jobs":[{"uid":"job-0"}]}}`, id, id*1000)
	}
	replies := exchange(t, s, initLine,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":1000,`+
			`"jobs":[{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[],`+
			`"podGroup":null,"tensorBoard":null}]}}`,
		line(3), line(4), line(5))
	for i, reply := range replies[1:] {
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"results":[{"uid":"job-0"}]}}`,
			i+2); reply != want {
			t.Errorf("reply %d: %s (want no action, no error)", i+2, reply)
		}
	}
	if got := strings.Join(trace, "; "); got != "listed 1; after delete: not found true" {
		t.Errorf("the reconciler saw %q", got)
	}
}
