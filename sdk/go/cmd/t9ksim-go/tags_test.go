package main

import (
	"reflect"
	"testing"
)

func TestCompatTagsFollowTheClientInterfaces(t *testing.T) {
	cases := []struct {
		version string
		want    []string
	}{
		{"v0.17.2", []string{"t9ksim_no_client_apply", "t9ksim_no_subresource_apply"}},
		{"v0.21.0", []string{"t9ksim_no_client_apply", "t9ksim_no_subresource_apply"}},
		{"v0.22.4", []string{"t9ksim_no_subresource_apply"}}, // Apply on the client only
		{"v0.23.0", nil},
		{"v0.25.2", nil},
		{"", nil}, // no controller-runtime in the module
		{"v1.0.0", nil},
	}
	for _, c := range cases {
		if got := compatTags(c.version); !reflect.DeepEqual(got, c.want) {
			t.Errorf("compatTags(%q) = %v, want %v", c.version, got, c.want)
		}
	}
}

func TestMergeTagsAddsToTheCallersTags(t *testing.T) {
	tags := []string{"t9ksim_clock", "t9ksim_no_client_apply"}
	got, ok := mergeTags([]string{"-tags", "mine", "./..."}, tags)
	if !ok || !reflect.DeepEqual(got, []string{"-tags", "mine,t9ksim_clock,t9ksim_no_client_apply", "./..."}) {
		t.Errorf("mergeTags with -tags: %v %v", got, ok)
	}
	got, ok = mergeTags([]string{"-tags=mine"}, tags)
	if !ok || got[0] != "-tags=mine,t9ksim_clock,t9ksim_no_client_apply" {
		t.Errorf("mergeTags with -tags=: %v %v", got, ok)
	}
	if _, ok := mergeTags([]string{"-o", "bin"}, tags); ok {
		t.Errorf("mergeTags without -tags said it merged")
	}
}
