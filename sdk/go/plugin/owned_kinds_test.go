package plugin

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

func TestDeclareKindRefusesBadRules(t *testing.T) {
	s, _ := newToy(t)
	for _, c := range []struct {
		kind string
		rule KindRule
		want string
	}{
		{"PyTorchJob", KubeflowJobRule("pytorchReplicaSpecs"), "register the kind first"},
		{"GenericJob", KindRule{ReplicaSpecs: "pytorchReplicaSpecs"}, "not a path under spec"},
		{"GenericJob", KindRule{ReplicaSpecs: "spec.x", Phases: []PhaseFrom{{"Done", "Completed"}}},
			`phase "Completed" of condition Done`},
	} {
		err := s.DeclareKind(c.kind, c.rule)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DeclareKind(%s, %+v) = %v; want an error with %q", c.kind, c.rule, err, c.want)
		}
	}
}

// A declared kind goes to the simulator in the initialize result, as docs/protocol-v2.md §1 says.
func TestDeclaredKindsInInitialize(t *testing.T) {
	s, _ := newToy(t)
	rule := KindRule{ReplicaSpecs: "spec.replicaSpecs",
		Phases: []PhaseFrom{{"Succeeded", "Succeeded"}, {"Running", "Running"}}}
	if err := s.DeclareKind("GenericJob", rule); err != nil {
		t.Fatal(err)
	}
	replies := exchange(t, s, initLine)
	want := `"kinds":[{"apiVersion":"batch.tensorstack.dev/v1beta1","kind":"GenericJob",` +
		`"phases":[{"condition":"Succeeded","phase":"Succeeded"},{"condition":"Running",` +
		`"phase":"Running"}],"replicaSpecs":"spec.replicaSpecs"}]`
	if !strings.Contains(replies[0], want) {
		t.Errorf("initialize result %s\nwant it to hold %s", replies[0], want)
	}
}

// Writes made in a random order (a controller ranging over a Go map) leave in one order.
func TestCanonicalOrder(t *testing.T) {
	pod := func(name string) map[string]any {
		return map[string]any{"type": "CreatePod", "pod": map[string]any{
			"metadata": map[string]any{"name": name}}}
	}
	sess := &session{
		actions: []map[string]any{pod("j-worker-10"), pod("j-worker-2"), pod("j-master-0"),
			{"type": "DeletePod", "name": "j-b"}, {"type": "DeletePod", "name": "j-a"},
			pod("j-c")},
		events: []map[string]any{{"reason": "SuccessfulCreateService", "message": "svc w"},
			{"reason": "SuccessfulCreatePod", "message": "pod w-10"},
			{"reason": "SuccessfulCreatePod", "message": "pod w-9"}},
	}
	canonicalOrder(sess)
	var got []string
	for _, a := range sess.actions {
		got = append(got, actionName(a))
	}
	if g := strings.Join(got, " "); g != "j-master-0 j-worker-2 j-worker-10 j-a j-b j-c" {
		t.Errorf("actions in order %s", g)
	}
	var msgs []string
	for _, e := range sess.events {
		msgs = append(msgs, e["message"].(string))
	}
	if g := strings.Join(msgs, ", "); g != "pod w-9, pod w-10, svc w" {
		t.Errorf("events in order %s", g)
	}
}

func TestWatchDeliversCreateUpdateDelete(t *testing.T) {
	s, _ := newToy(t)
	var got []string
	p := predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { got = append(got, "create "+e.Object.GetName()); return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			got = append(got, "update "+e.ObjectNew.GetName())
			return true
		},
		DeleteFunc: func(e event.DeleteEvent) bool { got = append(got, "delete "+e.Object.GetName()); return true },
	}
	if err := s.Watch(&corev1.Pod{}, p); err != nil {
		t.Fatal(err)
	}
	if err := s.Watch(&corev1.Node{}, p); err == nil {
		t.Error("a watch of Nodes was accepted; the SDK has none to deliver")
	}
	exchange(t, s, initLine,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":1100000,`+
			`"jobs":[{"uid":"job-0","resync":true,"job":`+jobJSON+`,"status":null,"pods":[`+
			podJSON("a-w-0", "pod-0", "Running")+`],"podGroup":null,"tensorBoard":null}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"reconcile","params":{"nowMicros":2000001,"jobs":[`+
			`{"uid":"job-0","pods":[`+podJSON("a-w-1", "pod-1", "Pending")+`],`+
			`"podPatches":[{"metadata":{"uid":"pod-0"},"status":{"phase":"Failed"}}]}]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"reconcile","params":{"nowMicros":3000000,"jobs":[`+
			`{"uid":"job-0","removedPods":["pod-0"]}]}}`)
	// In the objects' creation order; a-w-1, unchanged in the last observation, is no update.
	want := "create a-w-0; update a-w-0; create a-w-1; delete a-w-0"
	if g := strings.Join(got, "; "); g != want {
		t.Errorf("watch events %s; want %s", g, want)
	}
}
