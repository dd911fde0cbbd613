package v1beta1

import (
	"os"
	"path/filepath"
	"testing"

	"t9ksim.dev/sdk/api/internal/roundtrip"
)

// Paths relative to this folder (go test runs in it): the repository's examples, and the 77
// published T9k manifests, which live beside the repository (../shared, as fuzz/CMakeLists.txt
// finds them) and which a clone may not have.
const (
	repoExamples       = "../../../../../scenarios/examples"
	publishedManifests = "../../../../../../shared/examples/t9k-manifests"
)

// knownUnknownFields are fields of published manifests that neither the T9k types nor Kubernetes
// have: typos that the API server drops (and the simulator's loader reports as a warning with a
// hint). The strict decoder must name exactly these; the test then removes them and round-trips
// the rest.
var knownUnknownFields = map[string][]string{
	// `commands` for `command` (docs/scenario-format.md, "Strict and lenient parts").
	"examples--dcu_llama3_job-finetune.yaml#0": {"spec.replicaSpecs[0].template.spec.containers[0].commands"},
}

// newObject returns a fresh object of the Go type for a kind of this group.
func newObject(kind string) any {
	switch kind {
	case GenericJobKind:
		return &GenericJob{}
	case PyTorchTrainingJobKind:
		return &PyTorchTrainingJob{}
	case DeepSpeedJobKind:
		return &DeepSpeedJob{}
	case "GenericJobList":
		return &GenericJobList{}
	case "PyTorchTrainingJobList":
		return &PyTorchTrainingJobList{}
	case "DeepSpeedJobList":
		return &DeepSpeedJobList{}
	}
	return nil
}

func manifestFiles(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// roundTripAll checks every batch.tensorstack.dev object of the files: strict decoding (a field
// these types lack fails, naming the file and the field's path) and an unchanged re-encoding.
func roundTripAll(t *testing.T, files []string) map[string]int {
	t.Helper()
	docs, err := roundtrip.Documents(files, GroupVersion.Group)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, doc := range docs {
		t.Run(doc.Source, func(t *testing.T) {
			if doc.APIVersion != GroupVersion.String() {
				t.Fatalf("apiVersion %q; these types are %s", doc.APIVersion, GroupVersion)
			}
			obj := newObject(doc.Kind)
			if obj == nil {
				t.Fatalf("kind %q is not a kind of %s", doc.Kind, GroupVersion)
			}
			if err := roundtrip.Check(doc, obj, knownUnknownFields[doc.Source]...); err != nil {
				t.Fatalf("%s (%s): %v", doc.Source, doc.Kind, err)
			}
		})
		kinds[doc.Kind]++
	}
	return kinds
}

func TestRoundTripRepositoryExamples(t *testing.T) {
	files := manifestFiles(t, repoExamples, "*.yaml", "*.json")
	if len(files) == 0 {
		t.Fatalf("no example files in %s", repoExamples)
	}
	kinds := roundTripAll(t, files)
	t.Logf("round-tripped %v from %d files of %s", kinds, len(files), repoExamples)
	for _, k := range []string{GenericJobKind, PyTorchTrainingJobKind, DeepSpeedJobKind} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the examples: the test covers less than it should", k)
		}
	}
}

func TestRoundTripPublishedManifests(t *testing.T) {
	if _, err := os.Stat(publishedManifests); err != nil {
		t.Skipf("published manifests not available (%v): they live beside the repository, in shared/examples/t9k-manifests", err)
	}
	files := manifestFiles(t, publishedManifests, "*.yaml")
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", publishedManifests)
	}
	kinds := roundTripAll(t, files)
	total := 0
	for _, n := range kinds {
		total += n
	}
	t.Logf("round-tripped %d objects %v from %d files", total, kinds, len(files))
	if total < len(files) {
		t.Errorf("%d objects from %d files: every published manifest holds at least one job", total, len(files))
	}
}
