package plugin

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// toPod reads a pod given as a *corev1.Pod or as an unstructured object.
func toPod(obj client.Object) (*corev1.Pod, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		return p, nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	p := &corev1.Pod{}
	return p, runtime.DefaultUnstructuredConverter.FromUnstructured(u, p)
}

// tensorBoardAction is CreateTensorBoard (docs/protocol.md §7) from a TensorBoard object of any
// Go type: its name, namespace, spec (image, trainingLogFilesets) and controller owner.
func tensorBoardAction(obj client.Object) (map[string]any, error) {
	w, err := toWire(obj)
	if err != nil {
		return nil, err
	}
	m, _ := w.(map[string]any)
	a := map[string]any{"type": "CreateTensorBoard", "name": obj.GetName(),
		"namespace": obj.GetNamespace()}
	if spec, ok := m["spec"]; ok {
		a["spec"] = spec
	}
	if ref := metav1.GetControllerOf(obj); ref != nil {
		a["owner"] = map[string]any{"apiVersion": ref.APIVersion, "kind": ref.Kind,
			"name": ref.Name, "uid": string(ref.UID), "controller": true}
	} else {
		return nil, fmt.Errorf("it has no controller owner reference")
	}
	return a, nil
}
