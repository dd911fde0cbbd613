package plugin

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
)

// phaseSetter answers every job of its kind with a phase of its own.
type phaseSetter struct {
	c     ctrl.Client
	obj   func() ctrl.Object
	phase batchv1beta1.JobPhase
}

func (p *phaseSetter) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := p.obj()
	if err := p.c.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, err
	}
	switch j := obj.(type) {
	case *batchv1beta1.GenericJob:
		j.Status.Phase = p.phase
	case *batchv1beta1.DeepSpeedJob:
		j.Status.Phase = p.phase
	}
	return reconcile.Result{}, p.c.Status().Update(ctx, obj)
}

// Several reconcilers, one per kind, in one process: each job goes to its kind's.
func TestSeveralKindsInOneProcess(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = batchv1beta1.AddToScheme(scheme)
	s := NewServer(scheme)
	if err := s.Register("GenericJob", &batchv1beta1.GenericJob{}, &phaseSetter{c: s.Client(),
		obj: func() ctrl.Object { return &batchv1beta1.GenericJob{} }, phase: "Running"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Register("DeepSpeedJob", &batchv1beta1.DeepSpeedJob{}, &phaseSetter{c: s.Client(),
		obj: func() ctrl.Object { return &batchv1beta1.DeepSpeedJob{} }, phase: "Failed"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Register("GenericJob", &batchv1beta1.GenericJob{}, nil); err == nil {
		t.Error("a second reconciler for one kind was accepted")
	}
	if err := s.Register("PyTorchTrainingJob", &batchv1beta1.GenericJob{}, nil); err == nil {
		t.Error("a reconciler registered under another kind's name was accepted")
	}
	job := func(kind, name string) string {
		return `{"uid":"` + name + `","resync":true,"job":{"apiVersion":"batch.tensorstack.dev/v1beta1",` +
			`"kind":"` + kind + `","metadata":{"name":"` + name + `","namespace":"default","uid":"` + name +
			`"},"spec":{}},"status":null,"pods":[],"podGroup":null,"tensorBoard":null}`
	}
	replies := exchange(t, s, strings.Replace(initLine, `"kinds":["GenericJob"]`,
		`"kinds":["GenericJob","DeepSpeedJob"]`, 1),
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":1,"jobs":[`+
			job("DeepSpeedJob", "d")+`,`+job("GenericJob", "g")+`]}}`)
	for _, want := range []string{`"name":"DeepSpeedJob+GenericJob-go"`,
		`{"status":{"aggregate":{"creating":0,"deleted":0,"failed":0,"pending":0,"running":0,"succeeded":0,"unknown":0},"phase":"Failed"},"uid":"d"}`,
		`{"status":{"aggregate":{"creating":0,"deleted":0,"failed":0,"pending":0,"running":0,"succeeded":0,"unknown":0},"phase":"Running"},"uid":"g"}`} {
		if !strings.Contains(strings.Join(replies, "\n"), want) {
			t.Errorf("want %s in\n%s", want, strings.Join(replies, "\n"))
		}
	}
}
