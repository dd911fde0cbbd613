package genericjob_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	schedulerv1beta1 "t9ksim.dev/sdk/api/scheduler/v1beta1"
	"t9ksim.dev/sdk/examples/genericjob"
	"t9ksim.dev/sdk/plugin"
)

// The reconciler served by the SDK's adapter, as cmd/genericjob-controller serves it: the
// simulator's first reconcile of a two-worker job on the T9k scheduler gets the PodGroup, then
// the two pods, and the Pending status (docs/protocol-v2.md §2).
func TestServedByTheAdapter(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(batchv1beta1.AddToScheme(scheme))
	utilruntime.Must(schedulerv1beta1.AddToScheme(scheme))
	srv := plugin.NewServer(scheme)
	r := &genericjob.GenericJobReconciler{Client: srv.Client(), Scheme: scheme, Clock: srv.Clock(),
		Options: srv.Options}
	if err := srv.Register("GenericJob", &batchv1beta1.GenericJob{}, r); err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1","protocolVersions":["1","2"],"role":"controller","kinds":["GenericJob"],"controllerOptions":{"retryableExitCodes":"t9k","t9kRetryableExitCodes":[130,137,138,143],"backoffLimitRule":"master-fails-again","exitCodeIgnoresBackoffLimit":false,"restartBackoff":false,"restartBackoffBaseMicros":10000000,"restartBackoffCapMicros":360000000,"permanentFailureScope":"any-replica","maxDurationHandling":"fail-replica","runningWhen":"all-pods-running","genericLimitScope":"per-replica","elasticSuccess":"master"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"now":"1970-01-01T00:00:01.100000Z","nowMicros":1100000,"jobs":[{"uid":"job-0","resync":true,"job":{"apiVersion":"batch.tensorstack.dev/v1beta1","kind":"GenericJob","metadata":{"name":"a","namespace":"default","uid":"job-0","creationTimestamp":"1970-01-01T00:00:01Z"},"spec":{"cleanUpPolicy":"None","scheduler":{"t9kScheduler":{"queue":"default","priority":0}},"replicaSpecs":[{"type":"w","replicas":2,"restartPolicy":{"policy":"OnFailure","limit":4},"template":{"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}}]}},"status":null,"pods":[],"podGroup":null,"tensorBoard":null}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`,
	}, "\n") + "\n"
	var out strings.Builder
	if err := srv.ServeIO(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	var replies []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("reply %q: %v", sc.Text(), err)
		}
		replies = append(replies, m)
	}
	if len(replies) != 3 {
		t.Fatalf("replies: %s", out.String())
	}
	result, _ := replies[1]["result"].(map[string]any)
	results, _ := result["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("reconcile reply: %v", replies[1])
	}
	res := results[0].(map[string]any)
	var types []string
	for _, a := range res["actions"].([]any) {
		types = append(types, a.(map[string]any)["type"].(string))
	}
	if strings.Join(types, ",") != "CreatePodGroup,CreatePod,CreatePod" {
		t.Errorf("actions %v", types)
	}
	status, _ := res["status"].(map[string]any)
	if status["phase"] != "Pending" || status["startTime"] != "1970-01-01T00:00:01.100000Z" {
		t.Errorf("status %v", status)
	}
}
