package plugin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimeNowIsSimulated builds internal/clockcheck with t9ksim-go and checks that time.Now,
// metav1.Now, time.Since and the injected clock all read the simulated time, to the microsecond;
// built with plain go build, only the injected clock does.
func TestTimeNowIsSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("go", args...)
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "T9KSIM_GO_OVERLAY_DIR="+filepath.Join(dir, "overlay"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	sim := filepath.Join(dir, "simulated")
	wall := filepath.Join(dir, "wall")
	run("run", "./cmd/t9ksim-go", "build", "-o", sim, "./internal/clockcheck")
	run("build", "-o", wall, "./internal/clockcheck")
	input := initLine + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"reconcile","params":{"nowMicros":3723000456,"jobs":[` +
		`{"uid":"job-0","resync":true,"job":{"apiVersion":"batch.tensorstack.dev/v1beta1",` +
		`"kind":"GenericJob","metadata":{"name":"a","namespace":"default","uid":"job-0",` +
		`"creationTimestamp":"1970-01-01T00:00:01.000000Z"},"spec":{"replicaSpecs":[]}},` +
		`"status":null,"pods":[],"podGroup":null,"tensorBoard":null}]}}` + "\n"
	serve := func(bin string) string {
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		return string(out)
	}
	const at = `"1970-01-01T01:02:03.000456Z"`
	got := serve(sim)
	for _, want := range []string{`"startTime":` + at, `"completionTime":` + at,
		`"lastTransitionTime":` + at, `"message":"age 1h2m2.000456s"`,
		`"reason":"Orderhgfedcba"`} {
		if !strings.Contains(got, want) {
			t.Errorf("built with t9ksim-go: want %s in\n%s", want, got)
		}
	}
	got = serve(wall)
	if !strings.Contains(got, `"completionTime":`+at) || strings.Contains(got, `"startTime":`+at) {
		t.Errorf("built with go build: the injected clock is simulated, time.Now is not:\n%s", got)
	}
}
