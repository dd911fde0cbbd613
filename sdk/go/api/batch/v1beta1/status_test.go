package v1beta1

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"t9ksim.dev/sdk/api/internal/roundtrip"
)

// fullStatus is a job status as the simulator writes it (docs/protocol.md §6.4), every field set,
// keys in the simulator's order, times with microseconds. backoffCount and one exitCode are 0, to
// check that a present zero survives.
const fullStatus = `{
  "phase": "Running",
  "conditions": [
    {"type": "Initialized", "status": "True", "lastTransitionTime": "1970-01-01T00:00:00Z", "reason": "Created", "message": "job created"},
    {"type": "Running", "status": "True", "lastTransitionTime": "1970-01-01T00:00:01.100000Z", "reason": "Running", "message": "all pods running"}
  ],
  "aggregate": {"creating": 1, "pending": 2, "running": 3, "succeeded": 4, "failed": 5, "unknown": 6, "deleted": 7},
  "tasks": [
    {"type": "worker", "restartCount": 3, "replicas": [
      {"name": "a-worker-0", "uid": "pod-3", "phase": "Running",
       "containers": [{"name": "main", "state": "running", "exitCode": 0}], "restartCount": 2},
      {"name": "a-worker-1", "uid": "pod-4", "phase": "Failed",
       "containers": [{"name": "main", "state": "terminated", "exitCode": 137}], "restartCount": 1}
    ]},
    {"type": "master", "restartCount": 0}
  ],
  "backoffCount": 0,
  "tensorboard": {"name": "tb", "dependent": {"apiVersion": "tensorstack.dev/v1beta1", "kind": "TensorBoard", "name": "a-tb", "namespace": "team-a", "uid": "tb-1"},
                  "ready": true, "reason": "Ready", "action": "Create", "note": "created", "type": "Normal"},
  "startTime": "1970-01-01T00:00:01.100000Z",
  "completionTime": "1970-01-01T00:20:00.000001Z",
  "activeSince": "1970-01-02T03:04:05.999999Z",
  "elasticReplicas": 2
}`

func at(sec int64, micros int64) metav1.Time {
	return metav1.NewTime(time.Unix(sec, micros*1000).UTC())
}

func ptr[T any](v T) *T { return &v }

// expectedStatus is fullStatus as Go values, times to the microsecond.
func expectedStatus() JobStatus {
	return JobStatus{
		Phase: JobPhaseRunning,
		Conditions: []JobCondition{
			{Type: JobConditionInitialized, Status: corev1.ConditionTrue, LastTransitionTime: at(0, 0), Reason: "Created", Message: "job created"},
			{Type: JobConditionRunning, Status: corev1.ConditionTrue, LastTransitionTime: at(1, 100000), Reason: "Running", Message: "all pods running"},
		},
		Aggregate: Aggregate{Creating: 1, Pending: 2, Running: 3, Succeeded: 4, Failed: 5, Unknown: 6, Deleted: 7},
		Tasks: []TaskStatus{
			{Type: "worker", RestartCount: 3, Replicas: []ReplicaStatus{
				{Name: "a-worker-0", UID: "pod-3", Phase: corev1.PodRunning,
					Containers: []ContainerStatus{{Name: "main", State: "running", ExitCode: ptr[int32](0)}}, RestartCount: 2},
				{Name: "a-worker-1", UID: "pod-4", Phase: corev1.PodFailed,
					Containers: []ContainerStatus{{Name: "main", State: "terminated", ExitCode: ptr[int32](137)}}, RestartCount: 1},
			}},
			{Type: "master"},
		},
		BackoffCount: ptr[int32](0),
		Tensorboard: &DependentStatus{
			Name:      "tb",
			Dependent: corev1.ObjectReference{APIVersion: "tensorstack.dev/v1beta1", Kind: "TensorBoard", Name: "a-tb", Namespace: "team-a", UID: "tb-1"},
			Ready:     true, Reason: "Ready", Action: "Create", Note: "created", Type: "Normal",
		},
		StartTime:       ptr(at(1, 100000)),
		CompletionTime:  ptr(at(1200, 1)),
		ActiveSince:     ptr(at(86400+3*3600+4*60+5, 999999)),
		ElasticReplicas: ptr[int32](2),
	}
}

// statusKinds decode a status strictly into the status type of each kind (and JobStatus) and
// return it as a JobStatus, with the typed value to re-encode.
var statusKinds = []struct {
	name   string
	decode func(t *testing.T, data []byte) (JobStatus, any)
}{
	{"JobStatus", func(t *testing.T, data []byte) (JobStatus, any) {
		var s JobStatus
		mustDecode(t, data, &s)
		return s, &s
	}},
	{"GenericJobStatus", func(t *testing.T, data []byte) (JobStatus, any) {
		var s GenericJobStatus
		mustDecode(t, data, &s)
		return JobStatus(s), &s
	}},
	{"PyTorchTrainingJobStatus", func(t *testing.T, data []byte) (JobStatus, any) {
		var s PyTorchTrainingJobStatus
		mustDecode(t, data, &s)
		return JobStatus(s), &s
	}},
	{"DeepSpeedJobStatus", func(t *testing.T, data []byte) (JobStatus, any) {
		var s DeepSpeedJobStatus
		mustDecode(t, data, &s)
		return JobStatus(s), &s
	}},
}

func mustDecode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := roundtrip.DecodeStrict(data, v); err != nil {
		t.Fatalf("strict decode: %v", err)
	}
}

func TestFullStatusRoundTrip(t *testing.T) {
	want := expectedStatus()
	for _, k := range statusKinds {
		t.Run(k.name, func(t *testing.T) {
			got, typed := k.decode(t, []byte(fullStatus))

			// Decoded exactly: every value, times to the microsecond (as instants).
			if !equality.Semantic.DeepEqual(got, want) {
				g, _ := json.MarshalIndent(got, "", " ")
				t.Fatalf("decoded status differs from the expected values:\n%s", g)
			}
			for name, pair := range map[string][2]*metav1.Time{
				"startTime":      {got.StartTime, want.StartTime},
				"completionTime": {got.CompletionTime, want.CompletionTime},
				"activeSince":    {got.ActiveSince, want.ActiveSince},
				"conditions[1].lastTransitionTime": {&got.Conditions[1].LastTransitionTime,
					&want.Conditions[1].LastTransitionTime},
			} {
				if !pair[0].Time.Equal(pair[1].Time) {
					t.Errorf("%s: decoded %s, want %s", name, pair[0].Format(time.RFC3339Nano), pair[1].Format(time.RFC3339Nano))
				}
			}
			// The literal sets every field of the type somewhere (so a field added to the types
			// without being added here fails).
			for _, missing := range unsetFields(reflect.ValueOf(got)) {
				t.Errorf("fullStatus never sets %s", missing)
			}

			// Re-encoded: the same JSON, keys in the simulator's order; times at the second
			// precision metav1.Time writes (the plugin adapter writes microseconds itself).
			again, err := json.Marshal(typed)
			if err != nil {
				t.Fatal(err)
			}
			if diffs := statusDiff(t, []byte(fullStatus), again); len(diffs) > 0 {
				t.Errorf("re-encoded status differs:\n  %s\nre-encoded: %s", strings.Join(diffs, "\n  "), again)
			}
			if got, want := topLevelKeys(t, again), topLevelKeys(t, []byte(fullStatus)); !reflect.DeepEqual(got, want) {
				t.Errorf("re-encoded key order %v, want the simulator's %v", got, want)
			}
		})
	}
}

// An empty status (what the simulator never sends) encodes as nothing at all on the object, and
// a status of zeros keeps its aggregate.
func TestStatusPresence(t *testing.T) {
	b, err := json.Marshal(&GenericJob{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"status"`)) || bytes.Contains(b, []byte(`"spec"`)) {
		t.Errorf("a zero GenericJob encodes spec or status: %s", b)
	}
	const zeros = `{"aggregate":{"creating":0,"pending":0,"running":0,"succeeded":0,"failed":0,"unknown":0,"deleted":0}}`
	var s PyTorchTrainingJobStatus
	mustDecode(t, []byte(zeros), &s)
	if b, _ = json.Marshal(&s); string(b) != zeros {
		t.Errorf("zero status re-encodes as %s, want %s", b, zeros)
	}
}

// statusDiff compares two status JSONs as generic values, time-valued fields as instants with
// the re-encoded one truncated to seconds.
func statusDiff(t *testing.T, want, got []byte) []string {
	t.Helper()
	w, g := decodeGeneric(t, want), decodeGeneric(t, got)
	var diffs []string
	for _, path := range [][]string{{"startTime"}, {"completionTime"}, {"activeSince"}} {
		diffs = append(diffs, compareTime(path[0], w, g)...)
	}
	wc, gc := w["conditions"].([]any), g["conditions"].([]any)
	if len(wc) != len(gc) {
		return append(diffs, "conditions: lengths differ")
	}
	for i := range wc {
		diffs = append(diffs, compareTime("lastTransitionTime", wc[i].(map[string]any), gc[i].(map[string]any))...)
	}
	return append(diffs, roundtrip.Diff(w, g)...)
}

// compareTime checks m[key] of both, then removes it from both so that the rest compares exactly.
func compareTime(key string, want, got map[string]any) []string {
	ws, _ := want[key].(string)
	gs, _ := got[key].(string)
	delete(want, key)
	delete(got, key)
	wt, err1 := time.Parse(time.RFC3339Nano, ws)
	gt, err2 := time.Parse(time.RFC3339Nano, gs)
	if err1 != nil || err2 != nil {
		return []string{key + ": not a time in both: " + ws + " / " + gs}
	}
	if !gt.Equal(wt.Truncate(time.Second)) {
		return []string{key + ": " + gs + ", want " + ws + " at second precision"}
	}
	return nil
}

func decodeGeneric(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func topLevelKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 { // a key of the top-level object: note it, skip its value
				keys = append(keys, v)
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// unsetFields lists the fields (by Go path, lists collapsed to []) that are the zero value in
// every element of v. Types from Kubernetes packages are leaves.
func unsetFields(v reflect.Value) []string {
	set := map[string]bool{}
	all := map[string]bool{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		t := v.Type()
		if t.Kind() != reflect.Struct || !strings.HasPrefix(t.PkgPath(), "t9ksim.dev/") {
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			p := path + "." + f.Name
			all[p] = true
			fv := v.Field(i)
			if !fv.IsZero() {
				set[p] = true
			}
			switch fv.Kind() {
			case reflect.Pointer:
				if !fv.IsNil() {
					walk(fv.Elem(), p)
				}
			case reflect.Slice:
				for j := 0; j < fv.Len(); j++ {
					walk(fv.Index(j), p+"[]")
				}
			case reflect.Struct:
				walk(fv, p)
			}
		}
	}
	walk(v, "status")
	var out []string
	for p := range all {
		if !set[p] {
			out = append(out, p)
		}
	}
	return out
}
