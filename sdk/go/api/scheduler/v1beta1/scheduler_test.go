package v1beta1

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"t9ksim.dev/sdk/api/internal/roundtrip"
)

const (
	repoExamples    = "../../../../../scenarios/examples"
	protocolSchemas = "../../../../../protocol/schema"
)

func newObject(kind string) any {
	switch kind {
	case PodGroupKind:
		return &PodGroup{}
	case QueueKind:
		return &Queue{}
	case "PodGroupList":
		return &PodGroupList{}
	case "QueueList":
		return &QueueList{}
	}
	return nil
}

// Every scheduler.tensorstack.dev object of the repository's examples (podgroup.yaml, queues.yaml,
// the queues inside scenarios) decodes strictly and encodes back unchanged.
func TestRoundTripRepositoryExamples(t *testing.T) {
	var files []string
	for _, p := range []string{"*.yaml", "*.json"} {
		m, err := filepath.Glob(filepath.Join(repoExamples, p))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	docs, err := roundtrip.Documents(files, GroupVersion.Group)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, doc := range docs {
		kinds[doc.Kind]++
		t.Run(doc.Source, func(t *testing.T) {
			obj := newObject(doc.Kind)
			if doc.APIVersion != GroupVersion.String() || obj == nil {
				t.Fatalf("%s %s is not a kind of %s", doc.APIVersion, doc.Kind, GroupVersion)
			}
			if err := roundtrip.Check(doc, obj); err != nil {
				t.Fatalf("%s (%s): %v", doc.Source, doc.Kind, err)
			}
		})
	}
	t.Logf("round-tripped %v", kinds)
	if kinds[PodGroupKind] == 0 || kinds[QueueKind] == 0 {
		t.Errorf("examples lack a PodGroup or a Queue: %v", kinds)
	}
}

// A PodGroup and a Queue as the simulator writes them (serialize.cpp; docs/protocol.md §6.3),
// every field set, including status.
var fullObjects = []struct {
	kind, json string
}{
	{PodGroupKind, `{"apiVersion":"scheduler.tensorstack.dev/v1beta1","kind":"PodGroup",
	  "metadata":{"name":"a","namespace":"default","uid":"pg-1","creationTimestamp":"1970-01-01T00:00:01Z",
	    "ownerReferences":[{"apiVersion":"batch.tensorstack.dev/v1beta1","kind":"PyTorchTrainingJob","name":"a","uid":"job-1","controller":true}]},
	  "spec":{"minMember":3,"roles":[{"name":"master","minMember":1},{"name":"worker","minMember":2}],"queue":"default","priority":0,"topologyPolicy":"pack","finished":true},
	  "status":{"conditions":[{"type":"GroupScheduled","status":"True"},{"type":"SufficientGroupMember","status":"False",
	      "lastTransitionTime":"1970-01-01T00:00:02Z","reason":"NotEnough","message":"2 of 3"}],
	    "allocated":{"cpu":"16","memory":"64Gi","nvidia.com/gpu":"8"},"pending":1,"running":2,"succeeded":3,"failed":4,"unknown":5}}`},
	{QueueKind, `{"apiVersion":"scheduler.tensorstack.dev/v1beta1","kind":"Queue",
	  "metadata":{"name":"research","namespace":"t9k-system"},
	  "spec":{"quota":{"requests":{"cpu":"400","memory":"3Ti","nvidia.com/gpu":"32"}},"priority":0,"preemptible":false,"closed":false,
	    "maxDuration":"2h45m","resourceShapeProfile":"large",
	    "nodeSelector":{"matchLabels":{"pool":"a100"},"matchExpressions":[{"key":"zone","operator":"In","values":["peking"]}]},
	    "namespaceSelector":{"matchLabels":{"team":"a"}}},
	  "status":{"allocated":{"nvidia.com/gpu":"8"},"podGroups":{"total":2},"pods":{"pending":1,"running":2,"succeeded":3,"failed":4,"unknown":5}}}`},
}

func TestFullObjectsRoundTrip(t *testing.T) {
	for _, o := range fullObjects {
		t.Run(o.kind, func(t *testing.T) {
			doc := roundtrip.Document{Source: o.kind, APIVersion: GroupVersion.String(), Kind: o.kind, JSON: []byte(o.json)}
			if err := roundtrip.Check(doc, newObject(o.kind)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Every field the simulator writes in a PodGroup (protocol/schema/defs.json#/$defs/podGroup) is a
// field of these types, and the other way round except the condition fields the T9k scheduler
// writes and the simulator drops.
func TestPodGroupMatchesProtocolSchema(t *testing.T) {
	s, err := roundtrip.LoadSchemas(protocolSchemas)
	if err != nil {
		t.Fatal(err)
	}
	goOnly := map[string]bool{
		"PodGroup.status.conditions[].lastTransitionTime": true,
		"PodGroup.status.conditions[].reason":             true,
		"PodGroup.status.conditions[].message":            true,
	}
	diffs, err := s.CompareType("defs.json", "podGroup", "", reflect.TypeFor[PodGroup](), goOnly)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) > 0 {
		t.Errorf("defs.json#/$defs/podGroup and PodGroup differ:\n  %s", strings.Join(diffs, "\n  "))
	}
}

func TestSchemeKnowsAllKinds(t *testing.T) {
	sch := runtime.NewScheme()
	if err := AddToScheme(sch); err != nil {
		t.Fatal(err)
	}
	roundtrip.CheckSchemeKnows(t, sch, GroupVersion, &PodGroup{}, &Queue{}, &PodGroupList{},
		&QueueList{})
}
