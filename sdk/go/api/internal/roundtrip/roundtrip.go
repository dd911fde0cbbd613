// Package roundtrip is the test support of the API packages: it finds the T9k objects in
// manifest files and checks that a Go type decodes them strictly and encodes them back unchanged.
// Only tests import it.
package roundtrip

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Document is one object of a group found in a manifest file.
type Document struct {
	// Source names the object: the file, the document's index in it, and for an object embedded
	// in a scenario the path of its `manifest:` entry ("small-cluster.yaml#0:spec.workload.jobs[2].manifest").
	Source     string
	APIVersion string
	Kind       string
	// JSON is the object as JSON, converted from the YAML text as it is.
	JSON []byte
}

// Documents reads every YAML document of the files and returns the objects whose apiVersion is
// in group (e.g. "batch.tensorstack.dev"): top-level documents, items of a `kind: List`, and
// objects embedded in other documents (a t9ksim Scenario) under a key named `manifest`.
func Documents(files []string, group string) ([]Document, error) {
	var out []Document
	for _, f := range files {
		docs, err := readDocuments(f)
		if err != nil {
			return nil, err
		}
		for i, raw := range docs {
			var v any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("%s#%d: %w", f, i, err)
			}
			src := fmt.Sprintf("%s#%d", filepath.Base(f), i)
			if ofGroup(v, group) {
				out = append(out, document(src, v, raw))
				continue
			}
			if m, ok := v.(map[string]any); ok && m["kind"] == "List" {
				items, _ := m["items"].([]any)
				for j, item := range items {
					if ofGroup(item, group) {
						b, err := json.Marshal(item)
						if err != nil {
							return nil, err
						}
						out = append(out, document(fmt.Sprintf("%s:items[%d]", src, j), item, b))
					}
				}
				continue
			}
			embedded, err := findEmbedded(v, "", group)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", src, err)
			}
			for _, e := range embedded {
				e.Source = src + ":" + e.Source
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func readDocuments(file string) ([][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, len(out), err)
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // an empty document (comments only)
		}
		out = append(out, j)
	}
}

func ofGroup(v any, group string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	api, _ := m["apiVersion"].(string)
	_, hasKind := m["kind"].(string)
	return hasKind && strings.HasPrefix(api, group+"/")
}

func document(src string, v any, raw []byte) Document {
	m := v.(map[string]any)
	return Document{Source: src, APIVersion: m["apiVersion"].(string), Kind: m["kind"].(string), JSON: raw}
}

func findEmbedded(v any, path, group string) ([]Document, error) {
	var out []Document
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := joinKey(path, k)
			if k == "manifest" && ofGroup(x[k], group) {
				b, err := json.Marshal(x[k])
				if err != nil {
					return nil, err
				}
				out = append(out, document(p, x[k], b))
				continue
			}
			sub, err := findEmbedded(x[k], p, group)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	case []any:
		for i, item := range x {
			sub, err := findEmbedded(item, fmt.Sprintf("%s[%d]", path, i), group)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// DecodeStrict decodes JSON into obj as the API server does: case-sensitive field names, and an
// error naming the field path for an unknown or duplicate field.
func DecodeStrict(data []byte, obj any) error {
	strict, err := sigsjson.UnmarshalStrict(data, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// Check decodes doc strictly into obj (a pointer to a fresh value of the document's Go type),
// encodes obj back and compares the result with the original as generic JSON values. It returns
// nil when they are equal up to the normalisations Diff allows.
//
// unknown lists fields of the document that no type has (typos in published manifests, which the
// API server drops): the strict decoder must report exactly these, by path; they are then removed
// from the original and the rest is checked as usual.
func Check(doc Document, obj any, unknown ...string) error {
	data := doc.JSON
	if len(unknown) > 0 {
		want := make([]string, len(unknown))
		for i, p := range unknown {
			want[i] = fmt.Sprintf("unknown field %q", p)
		}
		err := DecodeStrict(data, obj)
		if err == nil || err.Error() != strings.Join(want, "; ") {
			return fmt.Errorf("strict decode: want the error %q, got %v", strings.Join(want, "; "), err)
		}
		v, err := generic(data)
		if err != nil {
			return err
		}
		for _, p := range unknown {
			if err := removePath(v, p); err != nil {
				return err
			}
		}
		if data, err = json.Marshal(v); err != nil {
			return err
		}
		reflect.ValueOf(obj).Elem().SetZero()
	}
	if err := DecodeStrict(data, obj); err != nil {
		return fmt.Errorf("strict decode: %w", err)
	}
	again, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	want, err := generic(data)
	if err != nil {
		return err
	}
	got, err := generic(again)
	if err != nil {
		return err
	}
	if diffs := Diff(want, got); len(diffs) > 0 {
		return fmt.Errorf("re-encoded object differs from the original:\n  %s\nre-encoded: %s",
			strings.Join(diffs, "\n  "), again)
	}
	return nil
}

func generic(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// quantityMaps are the keys whose values are maps of resource quantities (corev1.ResourceList):
// container resources' limits and requests, a queue's quota requests, allocated resources, pod
// overhead. Below them, and at the quantity-valued keys quantityKeys (an emptyDir's sizeLimit), a
// value may change spelling but not value (resource.Quantity encodes canonically: 1 -> "1",
// "0.5" -> "500m").
var (
	quantityMaps = map[string]bool{"limits": true, "requests": true, "allocated": true, "overhead": true}
	quantityKeys = map[string]bool{"sizeLimit": true}
)

// Diff compares two generic JSON values (want: the original, got: the re-encoding) and returns
// one line per difference, each naming the path. Two normalisations, both forced by Kubernetes'
// own types, are allowed:
//
//  1. resource quantities (below quantityMaps keys, and quantityKeys): two spellings of the same
//     quantity are equal (cpu: 1 comes back as "1");
//  2. a pod template's metadata: `{}` added where the original has none (corev1.PodTemplateSpec's
//     ObjectMeta is a struct under omitempty, which encoding/json never leaves out).
//
// Everything else must match exactly: keys, lists (an empty list stays []), strings, booleans,
// and numbers as written.
func Diff(want, got any) []string {
	var out []string
	diff("", false, want, got, &out)
	return out
}

func diff(path string, quantity bool, want, got any, out *[]string) {
	if quantity && sameQuantity(want, got) {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", show(path), brief(want), brief(got)))
			return
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := joinKey(path, k)
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				*out = append(*out, fmt.Sprintf("%s: lost (was %s)", p, brief(wv)))
			case !inW && k == "metadata" && strings.HasSuffix(path, "template") && isEmptyObject(gv):
				// corev1.PodTemplateSpec embeds ObjectMeta with omitempty, which never leaves
				// out a struct: an absent template metadata comes back as {}.
			case !inW:
				*out = append(*out, fmt.Sprintf("%s: added (%s)", p, brief(gv)))
			default:
				diff(p, quantity || quantityMaps[k] || quantityKeys[k], wv, gv, out)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", show(path), brief(want), brief(got)))
			return
		}
		for i := range w {
			diff(fmt.Sprintf("%s[%d]", path, i), quantity, w[i], g[i], out)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", show(path), brief(want), brief(got)))
		}
	}
}

func isEmptyObject(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

func sameQuantity(a, b any) bool {
	qa, ok1 := asQuantity(a)
	qb, ok2 := asQuantity(b)
	return ok1 && ok2 && qa.Cmp(qb) == 0
}

func asQuantity(v any) (resource.Quantity, bool) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	default:
		return resource.Quantity{}, false
	}
	q, err := resource.ParseQuantity(s)
	return q, err == nil
}

func show(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// removePath deletes the field at path ("spec.a[0].b") from a generic JSON value.
func removePath(v any, path string) error {
	parts := strings.Split(path, ".")
	cur := v
	for i, part := range parts {
		key, idx := part, []int(nil)
		if j := strings.IndexByte(part, '['); j >= 0 {
			key = part[:j]
			for _, n := range strings.Split(strings.TrimSuffix(part[j+1:], "]"), "][") {
				k, err := strconv.Atoi(n)
				if err != nil {
					return fmt.Errorf("path %q: bad index in %q", path, part)
				}
				idx = append(idx, k)
			}
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("path %q: %q is not in an object", path, key)
		}
		if i == len(parts)-1 && idx == nil {
			if _, ok := m[key]; !ok {
				return fmt.Errorf("path %q: no field %q", path, key)
			}
			delete(m, key)
			return nil
		}
		cur = m[key]
		for _, k := range idx {
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				return fmt.Errorf("path %q: no element %d", path, k)
			}
			cur = l[k]
		}
	}
	return fmt.Errorf("path %q does not end at a field", path)
}
