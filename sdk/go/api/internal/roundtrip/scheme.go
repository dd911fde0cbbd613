package roundtrip

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CheckSchemeKnows checks that the scheme gives each object (a kind or a list, named after its Go
// type) exactly its kind in gv, makes a fresh one of it by that kind, and that the object's deep
// copy is of its own type.
func CheckSchemeKnows(t *testing.T, sch *runtime.Scheme, gv schema.GroupVersion,
	objs ...runtime.Object) {
	t.Helper()
	for _, obj := range objs {
		kind := reflect.TypeOf(obj).Elem().Name()
		gvk := gv.WithKind(kind)
		t.Run(kind, func(t *testing.T) {
			got, _, err := sch.ObjectKinds(obj)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != gvk {
				t.Errorf("ObjectKinds = %v, want [%v]", got, gvk)
			}
			fresh, err := sch.New(gvk)
			if err != nil {
				t.Fatalf("scheme.New(%v): %v", gvk, err)
			}
			if reflect.TypeOf(fresh) != reflect.TypeOf(obj) {
				t.Errorf("scheme.New(%v) = %T, want %T", gvk, fresh, obj)
			}
			if c := obj.DeepCopyObject(); reflect.TypeOf(c) != reflect.TypeOf(obj) {
				t.Errorf("DeepCopyObject gives %T", c)
			}
		})
	}
}
