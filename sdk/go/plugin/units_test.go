package plugin

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestToWireKeepsMicroseconds(t *testing.T) {
	at := time.Date(1970, 1, 1, 0, 0, 1, 100_000_000, time.UTC)
	start := metav1.NewTime(time.Unix(7, 0))
	st := testJobStatus{Phase: "Running", StartTime: &start, Conditions: []testCondition{
		{Type: "Running", Status: "True", LastTransitionTime: metav1.NewTime(at)},
		{Type: "Initialized", Status: "True"}, // no time: left out, as the simulator reads it
	}}
	got, err := toWire(st)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:01.100000Z","status":"True",` +
		`"type":"Running"},{"status":"True","type":"Initialized"}],"phase":"Running",` +
		`"startTime":"1970-01-01T00:00:07Z"}`
	if string(b) != want {
		t.Errorf("toWire:\n got %s\nwant %s", b, want)
	}
}

func TestToWireQuantitiesAndOmitEmpty(t *testing.T) {
	c := corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("4")}}}
	got, err := toWire(c)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"name":"c","resources":{"limits":{"nvidia.com/gpu":"4"}}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestMergePatch(t *testing.T) { // RFC 7386's rules (docs/protocol-v2.md §2)
	for _, c := range []struct{ target, patch, want string }{
		{`{"a":1}`, `{"a":2}`, `{"a":2}`},
		{`{"a":{"b":1,"c":2}}`, `{"a":{"b":null}}`, `{"a":{"c":2}}`},
		{`{"a":[1,2]}`, `{"a":[3]}`, `{"a":[3]}`},
		{`{"a":1}`, `{"b":{"c":1}}`, `{"a":1,"b":{"c":1}}`},
		{`{"a":"x"}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
	} {
		var target, patch, want any
		json.Unmarshal([]byte(c.target), &target)
		json.Unmarshal([]byte(c.patch), &patch)
		json.Unmarshal([]byte(c.want), &want)
		if got := mergePatch(target, patch); !reflect.DeepEqual(got, want) {
			t.Errorf("mergePatch(%s, %s) = %v, want %s", c.target, c.patch, got, c.want)
		}
	}
}

func TestIdentify(t *testing.T) {
	owner := []metav1.OwnerReference{{Kind: "GenericJob", Name: "train", Controller: ptr(true)}}
	for _, c := range []struct {
		name        string
		labels, ann map[string]string
		owners      []metav1.OwnerReference
		want        podIdentity
		err         bool
	}{
		{name: "train-worker-3", owners: owner, want: podIdentity{"train", "worker", 3}},
		{name: "train-a-b-0", owners: owner, want: podIdentity{"train", "a-b", 0}},
		{name: "x", owners: owner,
			ann:  map[string]string{AnnotationReplicaType: "w", AnnotationRank: "2"},
			want: podIdentity{"train", "w", 2}},
		{name: "train-master-0", owners: owner, labels: map[string]string{
			labelKubeflowReplicaType: "master", labelKubeflowReplicaIndex: "0"},
			want: podIdentity{"train", "master", 0}},
		{name: "train-worker-3", err: true},                // no owner
		{name: "other-worker-3", owners: owner, err: true}, // not the job's name
		{name: "train-worker-x", owners: owner, err: true}, // no rank
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: c.name, Labels: c.labels,
			Annotations: c.ann, OwnerReferences: c.owners}}
		got, err := identify(pod)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("identify(%s) = %+v, %v; want %+v (error: %v)", c.name, got, err, c.want, c.err)
		}
	}
}

func TestEffectiveRequests(t *testing.T) {
	q := resource.MustParse
	spec := corev1.PodSpec{
		Containers: []corev1.Container{
			{Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": q("4"), "cpu": q("2")},
				Requests: corev1.ResourceList{"cpu": q("1")}}},
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("500m")}}},
		},
		InitContainers: []corev1.Container{
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("8"), "memory": q("1Gi")}}},
		},
	}
	got := effectiveRequests(&spec)
	want := map[corev1.ResourceName]string{"nvidia.com/gpu": "4", "cpu": "8", "memory": "1Gi"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for name, w := range want {
		if g := got[name]; g.Cmp(q(w)) != 0 {
			t.Errorf("%s: got %s, want %s", name, g.String(), w)
		}
	}
}

func ptr[T any](v T) *T { return &v }
