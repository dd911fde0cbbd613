// Command clockcheck is a controller that reads the time every way controllers do (time.Now,
// metav1.Now, time.Since, the injected clock) and writes what it read into its job's status; the
// plugin package's tests build it with and without t9ksim-go and check what the simulator gets.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	"t9ksim.dev/sdk/plugin"
)

type reconciler struct {
	client.Client
	clock clock.PassiveClock
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var job batchv1beta1.GenericJob
	if err := r.Get(ctx, req.NamespacedName, &job); err != nil {
		return ctrl.Result{}, err
	}
	start := metav1.NewTime(time.Now())
	injected := metav1.NewTime(r.clock.Now())
	job.Status.StartTime = &start
	job.Status.CompletionTime = &injected
	// A small map ranged over: in insertion order with t9ksim-go (its map overlay), from a
	// random start otherwise.
	m := map[string]bool{}
	for _, k := range []string{"h", "g", "f", "e", "d", "c", "b", "a"} {
		m[k] = true
	}
	order := ""
	for k := range m {
		order += k
	}
	job.Status.Conditions = []batchv1beta1.JobCondition{{Type: "Running", Status: "True",
		LastTransitionTime: metav1.Now(), Reason: "Order" + order,
		// time.Since a creation time the simulator sent: simulated age.
		Message: fmt.Sprintf("age %s", time.Since(job.CreationTimestamp.Time))}}
	return ctrl.Result{}, r.Status().Update(ctx, &job)
}

func main() {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = batchv1beta1.AddToScheme(scheme)
	srv := plugin.NewServer(scheme)
	r := &reconciler{Client: srv.Client(), clock: srv.Clock()}
	if err := srv.Register("GenericJob", &batchv1beta1.GenericJob{}, r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := srv.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
