// Command genericjob-controller serves the GenericJob controller of package genericjob to
// t9ksim as a controller plugin (docs/plugins.md):
//
//	t9ksim run scenario.yaml --plugin GenericJob=path/to/genericjob-controller
//
// It speaks the plugin protocol on stdin and stdout until the simulator shuts it down.
package main

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	schedulerv1beta1 "t9ksim.dev/sdk/api/scheduler/v1beta1"
	"t9ksim.dev/sdk/examples/genericjob"
	"t9ksim.dev/sdk/plugin"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genericjob-controller:", err)
		os.Exit(1)
	}
}

func run() error {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(batchv1beta1.AddToScheme(scheme))
	utilruntime.Must(schedulerv1beta1.AddToScheme(scheme))

	srv := plugin.NewServer(scheme)
	srv.SetName("genericjob-controller")
	r := &genericjob.GenericJobReconciler{
		Client:   srv.Client(),
		Scheme:   scheme,
		Clock:    srv.Clock(),
		Options:  srv.Options,
		Recorder: srv.EventRecorder("genericjob-controller"),
	}
	if err := srv.Register(batchv1beta1.GenericJobKind, &batchv1beta1.GenericJob{}, r); err != nil {
		return err
	}
	return srv.Serve()
}
