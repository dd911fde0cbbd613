package roundtrip

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// Schemas are the plugin protocol's JSON schemas (protocol/schema/*.json), by file name.
type Schemas struct {
	dir   string
	files map[string]map[string]any
}

// LoadSchemas reads the schemas of a folder.
func LoadSchemas(dir string) (*Schemas, error) {
	s := &Schemas{dir: dir, files: map[string]map[string]any{}}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no schemas in %s", dir)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		s.files[filepath.Base(p)] = m
	}
	return s, nil
}

type located struct {
	file string
	node map[string]any
}

// Def returns the definition file#/$defs/name, following $refs.
func (s *Schemas) def(file, name string) (located, error) {
	f, ok := s.files[file]
	if !ok {
		return located{}, fmt.Errorf("no schema file %s", file)
	}
	defs, _ := f["$defs"].(map[string]any)
	n, ok := defs[name].(map[string]any)
	if !ok {
		return located{}, fmt.Errorf("no definition %s#/$defs/%s", file, name)
	}
	return s.resolve(located{file, n})
}

func (s *Schemas) resolve(l located) (located, error) {
	for i := 0; i < 20; i++ {
		ref, ok := l.node["$ref"].(string)
		if !ok {
			return l, nil
		}
		file, frag, _ := strings.Cut(ref, "#")
		if file == "" {
			file = l.file
		}
		name, ok := strings.CutPrefix(frag, "/$defs/")
		if !ok {
			return l, fmt.Errorf("unsupported $ref %q", ref)
		}
		f, ok := s.files[file]
		if !ok {
			return l, fmt.Errorf("$ref %q: no file %s", ref, file)
		}
		defs, _ := f["$defs"].(map[string]any)
		n, ok := defs[name].(map[string]any)
		if !ok {
			return l, fmt.Errorf("$ref %q: no definition", ref)
		}
		l = located{file, n}
	}
	return l, fmt.Errorf("$ref chain too long")
}

// CompareType checks that Go type t has exactly the JSON fields that the schema object at
// file#/$defs/def (then following the property path, e.g. "properties.spec") describes,
// recursively through nested objects and arrays of objects. Types from Kubernetes packages and
// maps are leaves. goOnly lists field paths that may exist in Go only (e.g. fields of the real
// API the simulator drops). It returns one line per difference.
func (s *Schemas) CompareType(file, def, propertyPath string, t reflect.Type, goOnly map[string]bool) ([]string, error) {
	l, err := s.def(file, def)
	if err != nil {
		return nil, err
	}
	if propertyPath != "" {
		for _, key := range strings.Split(propertyPath, ".") {
			n, ok := l.node[key].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s#/$defs/%s: no %s", file, def, propertyPath)
			}
			if l, err = s.resolve(located{l.file, n}); err != nil {
				return nil, err
			}
		}
	}
	var out []string
	err = s.compare(l, t, t.Name(), goOnly, &out)
	return out, err
}

func (s *Schemas) compare(l located, t reflect.Type, path string, goOnly map[string]bool, out *[]string) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() == reflect.Array || (l.node["type"] == "array") {
		items, ok := l.node["items"].(map[string]any)
		if !ok {
			return nil
		}
		il, err := s.resolve(located{l.file, items})
		if err != nil {
			return err
		}
		return s.compare(il, t, path+"[]", goOnly, out)
	}
	props, ok := l.node["properties"].(map[string]any)
	if !ok || t.Kind() != reflect.Struct || !strings.HasPrefix(t.PkgPath(), "t9ksim.dev/") {
		return nil // a scalar, a map, or a Kubernetes type: a leaf
	}
	fields := jsonFields(t)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := path + "." + name
		f, ok := fields[name]
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: in the schema (%s), not in the Go type %s", p, l.file, t.Name()))
			continue
		}
		sub, err := s.resolve(located{l.file, props[name].(map[string]any)})
		if err != nil {
			return err
		}
		if err := s.compare(sub, f, p, goOnly, out); err != nil {
			return err
		}
	}
	goNames := make([]string, 0, len(fields))
	for name := range fields {
		goNames = append(goNames, name)
	}
	sort.Strings(goNames)
	for _, name := range goNames {
		if _, ok := props[name]; !ok && !goOnly[path+"."+name] {
			*out = append(*out, fmt.Sprintf("%s: in the Go type %s, not in the schema (%s)", path+"."+name, t.Name(), l.file))
		}
	}
	return nil
}

// jsonFields maps the JSON names of a struct's fields (inline embedded structs flattened) to
// their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
