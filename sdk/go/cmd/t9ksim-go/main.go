// Command t9ksim-go runs the go command so that time.Now reads the simulated time in a controller
// served by the t9ksim SDK, without a change to the controller's source:
//
//	t9ksim-go build -o bin/manager ./cmd/t9ksim
//	t9ksim-go test ./...
//
// It is `go build|test|vet|run` with an overlay (go help build, -overlay) that adds one function
// to the standard library's time package, T9ksimSetClock, and makes time.Now call the function
// set there; and with the build tag t9ksim_clock, under which the SDK sets it. Everything that
// reads the time through time.Now (metav1.Now, time.Since, clock.RealClock, a logger's
// timestamps) then reads the simulated time of the reconcile in progress. Timers and sleeps
// (time.Sleep, time.After, time.NewTimer) still run on the wall clock: see docs/plugins-go.md.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The line of time.Now that reads the clock, in the Go releases this was checked with (1.26); the
// overlay replaces it. A release that changes it is refused with a clear message rather than
// built without the simulated clock.
const nowLine = "\tsec, nsec, mono := runtimeNow()\n"

const hookFile = `package time

// Added by t9ksim-go: the simulated clock of the t9ksim SDK.

var t9ksimClock func() (sec int64, nsec int32)

// T9ksimSetClock makes Now read f instead of the wall clock (nil: the wall clock again).
func T9ksimSetClock(f func() (sec int64, nsec int32)) { t9ksimClock = f }

// t9ksimNow is runtimeNow, or the simulated clock when one is set: a time without a monotonic
// reading, so that Since and Sub use the simulated wall time too.
func t9ksimNow() (int64, int32, int64) {
	if f := t9ksimClock; f != nil {
		sec, nsec := f()
		return sec, nsec, 0
	}
	return runtimeNow()
}
`

// Where a map iteration picks its random start (internal/runtime/maps, Go 1.26), and what
// t9ksim-go puts there: every iteration starts at the first slot, so that a map of up to 8
// entries (one group, filled in insertion order) is ranged over in the order it was filled, run
// after run. Controllers that range over a small map (Kubeflow's replica specs) then act in the
// same order every run; larger maps keep a random hash seed (docs/plugins-go.md "Simulated time").
const (
	iterRandom = "\tit.entryOffset = rand()\n\tit.dirOffset = rand()\n"
	iterFixed  = "\tit.entryOffset = 0\n\tit.dirOffset = 0\n"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: t9ksim-go build|test|vet|run|list [go flags] [packages]")
		os.Exit(2)
	}
	overlay, err := prepareOverlay()
	if err != nil {
		fmt.Fprintln(os.Stderr, "t9ksim-go:", err)
		os.Exit(1)
	}
	args := []string{os.Args[1], "-overlay", overlay}
	tags := append([]string{"t9ksim_clock"}, compatTags(controllerRuntimeVersion())...)
	rest, tagged := mergeTags(os.Args[2:], tags)
	if !tagged {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, rest...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "t9ksim-go:", err)
		os.Exit(1)
	}
}

// mergeTags adds tags to a -tags flag the caller gave (true), or leaves the arguments.
func mergeTags(args []string, tags []string) ([]string, bool) {
	out := append([]string(nil), args...)
	extra := "," + strings.Join(tags, ",")
	for i, a := range out {
		switch {
		case a == "-tags" || a == "--tags":
			if i+1 < len(out) {
				out[i+1] += extra
				return out, true
			}
		case strings.HasPrefix(a, "-tags=") || strings.HasPrefix(a, "--tags="):
			out[i] = a + extra
			return out, true
		}
	}
	return out, false
}

// controllerRuntimeVersion is the version of controller-runtime the module being built selects
// (after replace directives; a replacement by a local folder has no version of its own, so the
// required one stands for it), or "" outside a module or without it. The go command's -C and
// -modfile are not looked at.
func controllerRuntimeVersion() string {
	out, err := exec.Command("go", "list", "-m", "-f",
		"{{if and .Replace .Replace.Version}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}",
		"sigs.k8s.io/controller-runtime").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// compatTags are the SDK's build tags for an older controller-runtime, whose client interfaces
// lack methods the SDK implements (docs/plugins-go.md "Older controller-runtime"): server-side
// Apply on the client came in v0.22, on subresources in v0.23.
func compatTags(version string) []string {
	var major, minor int
	if _, err := fmt.Sscanf(version, "v%d.%d.", &major, &minor); err != nil || major > 0 {
		return nil
	}
	var tags []string
	if minor < 22 {
		tags = append(tags, "t9ksim_no_client_apply")
	}
	if minor < 23 {
		tags = append(tags, "t9ksim_no_subresource_apply")
	}
	return tags
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// prepareOverlay writes the overlay for this Go installation once (in the user's cache, keyed by
// the installation's time.go) and returns the path of its JSON file.
func prepareOverlay() (string, error) {
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return "", err
	}
	timeDir := filepath.Join(goroot, "src", "time")
	src, err := os.ReadFile(filepath.Join(timeDir, "time.go"))
	if err != nil {
		return "", err
	}
	nowAt := bytes.Index(src, []byte("func Now() Time {\n"))
	if nowAt < 0 || bytes.Count(src, []byte(nowLine)) != 1 ||
		!bytes.HasPrefix(src[nowAt+len("func Now() Time {\n"):], []byte(nowLine)) {
		version, _ := goEnv("GOVERSION")
		return "", fmt.Errorf("this Go (%s, %s) has a time.Now that t9ksim-go does not know; it "+
			"was written for Go 1.26's, whose body starts %q", version, goroot, nowLine)
	}
	patched := bytes.Replace(src, []byte(nowLine), []byte("\tsec, nsec, mono := t9ksimNow()\n"), 1)
	mapsDir := filepath.Join(goroot, "src", "internal", "runtime", "maps")
	table, err := os.ReadFile(filepath.Join(mapsDir, "table.go"))
	if err != nil {
		return "", err
	}
	if bytes.Count(table, []byte(iterRandom)) != 1 {
		version, _ := goEnv("GOVERSION")
		return "", fmt.Errorf("this Go (%s, %s) starts map iterations in a way t9ksim-go does not "+
			"know; it was written for Go 1.26's %q", version, goroot, iterRandom)
	}
	table = bytes.Replace(table, []byte(iterRandom), []byte(iterFixed), 1)
	sum := sha256.Sum256(append(append(append([]byte(nil), src...), hookFile...), table...))
	cache := os.Getenv("T9KSIM_GO_OVERLAY_DIR") // tests: a folder of their own
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			cache = os.TempDir()
		}
		cache = filepath.Join(cache, "t9ksim-go")
	}
	dir := filepath.Join(cache, hex.EncodeToString(sum[:8]))
	overlay := filepath.Join(dir, "overlay.json")
	if _, err := os.Stat(overlay); err == nil {
		return overlay, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	files := map[string][]byte{"time.go": patched, "zz_t9ksim_clock.go": []byte(hookFile)}
	replace := map[string]string{}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := writeAtomic(p, body); err != nil {
			return "", err
		}
		replace[filepath.Join(timeDir, name)] = p
	}
	p := filepath.Join(dir, "maps_table.go")
	if err := writeAtomic(p, table); err != nil {
		return "", err
	}
	replace[filepath.Join(mapsDir, "table.go")] = p
	spec, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	return overlay, writeAtomic(overlay, spec)
}

func writeAtomic(path string, body []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
