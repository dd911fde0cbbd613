package plugin

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// A job kind of the tests' own, so that the adapter's tests do not depend on the API types.

type testJobSpec struct {
	Replicas int32 `json:"replicas"`
}

type testCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string      `json:"reason,omitempty"`
}

type testJobStatus struct {
	Phase      string          `json:"phase,omitempty"`
	Conditions []testCondition `json:"conditions,omitempty"`
	StartTime  *metav1.Time    `json:"startTime,omitempty"`
}

type testJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              testJobSpec   `json:"spec,omitempty"`
	Status            testJobStatus `json:"status,omitempty"`
}

func (in *testJobStatus) DeepCopy() *testJobStatus {
	out := *in
	out.Conditions = nil
	for _, c := range in.Conditions {
		c.LastTransitionTime = *c.LastTransitionTime.DeepCopy()
		out.Conditions = append(out.Conditions, c)
	}
	if in.StartTime != nil {
		out.StartTime = in.StartTime.DeepCopy()
	}
	return &out
}

func (in *testJob) DeepCopyObject() runtime.Object {
	out := &testJob{TypeMeta: in.TypeMeta, Spec: in.Spec}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status = *in.Status.DeepCopy()
	return out
}

type testJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []testJob `json:"items"`
}

func (in *testJobList) DeepCopyObject() runtime.Object {
	out := &testJobList{TypeMeta: in.TypeMeta}
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*testJob))
	}
	return out
}

var testJobGVK = schema.GroupVersionKind{Group: "batch.tensorstack.dev", Version: "v1beta1",
	Kind: "GenericJob"}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	s.AddKnownTypeWithName(testJobGVK, &testJob{})
	s.AddKnownTypeWithName(testJobGVK.GroupVersion().WithKind("GenericJobList"), &testJobList{})
	metav1.AddToGroupVersion(s, testJobGVK.GroupVersion())
	return s
}
