package v1beta1

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"t9ksim.dev/sdk/api/internal/roundtrip"
)

// The plugin protocol's schemas, part of the repository.
const protocolSchemas = "../../../../../protocol/schema"

// Every field the simulator writes in a job (protocol/schema/job.json, defs.json#/$defs/jobStatus)
// is a field of these types, and the other way round, except the fields listed as Go-only.
func TestTypesMatchProtocolSchema(t *testing.T) {
	s, err := roundtrip.LoadSchemas(protocolSchemas)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file, def, path string
		typ             reflect.Type
		goOnly          map[string]bool
	}{
		{"defs.json", "jobStatus", "", reflect.TypeFor[JobStatus](), nil},
		{"defs.json", "jobStatus", "", reflect.TypeFor[GenericJobStatus](), nil},
		{"defs.json", "jobStatus", "", reflect.TypeFor[PyTorchTrainingJobStatus](), nil},
		{"defs.json", "jobStatus", "", reflect.TypeFor[DeepSpeedJobStatus](), nil},
		{"job.json", "genericJob", "", reflect.TypeFor[GenericJob](), nil},
		{"job.json", "pyTorchTrainingJob", "", reflect.TypeFor[PyTorchTrainingJob](), nil},
		{"job.json", "deepSpeedJob", "", reflect.TypeFor[DeepSpeedJob](), nil},
	}
	for _, c := range cases {
		t.Run(c.typ.Name(), func(t *testing.T) {
			diffs, err := s.CompareType(c.file, c.def, c.path, c.typ, c.goOnly)
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) > 0 {
				t.Errorf("%s#/$defs/%s and %s differ:\n  %s", c.file, c.def, c.typ, strings.Join(diffs, "\n  "))
			}
		})
	}
}

func TestSchemeKnowsAllKinds(t *testing.T) {
	sch := runtime.NewScheme()
	if err := AddToScheme(sch); err != nil {
		t.Fatal(err)
	}
	roundtrip.CheckSchemeKnows(t, sch, GroupVersion, &GenericJob{}, &PyTorchTrainingJob{},
		&DeepSpeedJob{}, &GenericJobList{}, &PyTorchTrainingJobList{}, &DeepSpeedJobList{})
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "batch.tensorstack.dev", Version: "v1beta1", Kind: "GenericJob"},
		{Group: "batch.tensorstack.dev", Version: "v1beta1", Kind: "PyTorchTrainingJob"},
		{Group: "batch.tensorstack.dev", Version: "v1beta1", Kind: "DeepSpeedJob"},
	} {
		if !sch.Recognizes(gvk) {
			t.Errorf("the scheme does not recognise %v", gvk)
		}
	}
}

// DeepCopy copies everything: a deep copy of the full status compares equal and shares nothing.
func TestDeepCopyStatus(t *testing.T) {
	job := &PyTorchTrainingJob{Status: PyTorchTrainingJobStatus(expectedStatus())}
	c := job.DeepCopy()
	if !reflect.DeepEqual(c, job) {
		t.Fatal("deep copy differs")
	}
	*c.Status.Tasks[0].Replicas[0].Containers[0].ExitCode = 9
	*c.Status.BackoffCount = 9
	c.Status.Tensorboard.Name = "other"
	if *job.Status.Tasks[0].Replicas[0].Containers[0].ExitCode != 0 || *job.Status.BackoffCount != 0 || job.Status.Tensorboard.Name != "tb" {
		t.Error("the deep copy shares memory with the original")
	}
}
