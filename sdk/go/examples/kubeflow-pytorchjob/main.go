// Command kubeflow-pytorchjob serves the Kubeflow training-operator's PyTorchJob reconciler
// (kubeflow.org/v1, github.com/kubeflow/training-operator v1.8.1), unmodified, to t9ksim as a
// controller plugin of a kind of its own (docs/plugins-go.md "A third-party controller"):
//
//	spec:
//	  plugins:
//	    controllers:
//	      - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, command: [kubeflow-pytorchjob]}
//
// What this file adds is what the operator's own main does with a controller-runtime manager:
// the manager's client, scheme, event recorder and REST config come from the SDK, and the
// watches of its SetupWithManager (pods and Services, with the operator's predicates, which keep
// its expectations) are the SDK's. Gang scheduling (Volcano, scheduler-plugins) is not set up:
// the simulator's default scheduler places the pods one by one.
package main

import (
	"fmt"
	"os"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/kubeflow/training-operator/pkg/common/util"
	"github.com/kubeflow/training-operator/pkg/controller.v1/common"
	"github.com/kubeflow/training-operator/pkg/controller.v1/pytorch"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"t9ksim.dev/sdk/plugin"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kubeflow-pytorchjob:", err)
		os.Exit(1)
	}
}

// simManager is the part of a manager.Manager that pytorch.NewReconciler reads; the rest of the
// interface (starting, leader election, webhooks, caches) is not used in a simulation and
// panics if called.
type simManager struct {
	manager.Manager
	srv    *plugin.Server
	scheme *runtime.Scheme
}

func (m *simManager) GetClient() client.Client    { return m.srv.Client() }
func (m *simManager) GetAPIReader() client.Reader { return m.srv.Client() }
func (m *simManager) GetScheme() *runtime.Scheme  { return m.scheme }
func (m *simManager) GetConfig() *rest.Config     { return m.srv.RESTConfig() }
func (m *simManager) GetEventRecorderFor(name string) record.EventRecorder {
	return m.srv.EventRecorder(name)
}

func run() error {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(kubeflowv1.AddToScheme(scheme))

	srv := plugin.NewServer(scheme)
	srv.SetName("kubeflow-pytorchjob")
	noGangScheduling := func(*common.JobController) {}
	r := pytorch.NewReconciler(&simManager{srv: srv, scheme: scheme}, noGangScheduling)
	if err := srv.Register(kubeflowv1.PyTorchJobKind, &kubeflowv1.PyTorchJob{}, r); err != nil {
		return err
	}
	if err := srv.DeclareKind(kubeflowv1.PyTorchJobKind,
		plugin.KubeflowJobRule("pytorchReplicaSpecs")); err != nil {
		return err
	}
	// The watches of PyTorchJobReconciler.SetupWithManager, with its predicates.
	dependents := predicate.Funcs{
		CreateFunc: util.OnDependentCreateFunc(r.Expectations),
		UpdateFunc: util.OnDependentUpdateFunc(&r.JobController),
		DeleteFunc: util.OnDependentDeleteFunc(r.Expectations),
	}
	for _, obj := range []client.Object{&corev1.Pod{}, &corev1.Service{}} {
		if err := srv.Watch(obj, dependents); err != nil {
			return err
		}
	}
	return srv.Serve()
}
