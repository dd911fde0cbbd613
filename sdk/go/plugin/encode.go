package plugin

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// toWire turns a typed object (or part of one) into generic JSON values the way encoding/json
// would, with one difference: times (metav1.Time, metav1.MicroTime, time.Time) keep their
// microseconds. metav1.Time marshals at the second, as the API server stores it; the simulator's
// clock counts microseconds, and a status the controller writes must come back exact.
func toWire(v any) (any, error) {
	return encodeValue(reflect.ValueOf(v))
}

var (
	metaTimeType  = reflect.TypeOf(metav1.Time{})
	microTimeType = reflect.TypeOf(metav1.MicroTime{})
	timeType      = reflect.TypeOf(time.Time{})
	marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

// formatTime writes a time as the simulator does: whole seconds without a fraction, otherwise
// six digits (the clock's resolution is a microsecond).
func formatTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Truncate(time.Microsecond).Format("2006-01-02T15:04:05.000000Z")
}

func encodeValue(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	switch v.Type() {
	case metaTimeType:
		t := v.Interface().(metav1.Time)
		if t.IsZero() {
			return nil, nil
		}
		return formatTime(t.Time), nil
	case microTimeType:
		t := v.Interface().(metav1.MicroTime)
		if t.IsZero() {
			return nil, nil
		}
		return formatTime(t.Time), nil
	case timeType:
		return formatTime(v.Interface().(time.Time)), nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return encodeValue(v.Elem())
	}
	if m, ok := marshalerOf(v); ok {
		b, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		var out any
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	switch v.Kind() {
	case reflect.Struct:
		out := map[string]any{}
		if err := encodeFields(v, out); err != nil {
			return nil, err
		}
		return out, nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			x, err := encodeValue(it.Value())
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(it.Key().Interface())] = x
		}
		return out, nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil, nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b, err := json.Marshal(v.Interface())
			if err != nil {
				return nil, err
			}
			var out any
			return out, json.Unmarshal(b, &out)
		}
		out := make([]any, v.Len())
		for i := range out {
			x, err := encodeValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	}
	return nil, fmt.Errorf("cannot encode a value of type %s", v.Type())
}

// marshalerOf returns the value's own JSON encoding (resource.Quantity, IntOrString, ...), by
// value or, when addressable, by pointer, as encoding/json finds it.
func marshalerOf(v reflect.Value) (json.Marshaler, bool) {
	if v.Kind() == reflect.Struct || v.Kind() == reflect.Map || v.Kind() == reflect.Slice ||
		v.Kind() == reflect.String || v.Kind() <= reflect.Float64 {
		if v.Type().Implements(marshalerType) {
			return v.Interface().(json.Marshaler), true
		}
		if reflect.PointerTo(v.Type()).Implements(marshalerType) {
			p := reflect.New(v.Type())
			p.Elem().Set(v)
			return p.Interface().(json.Marshaler), true
		}
	}
	return nil, false
}

func encodeFields(v reflect.Value, out map[string]any) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && name == "")
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		fv := v.Field(i)
		if inline {
			for fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					break
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				if err := encodeFields(fv, out); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omitEmpty := strings.Contains(","+opts+",", ",omitempty,")
		if omitEmpty && isEmptyValue(fv) ||
			strings.Contains(","+opts+",", ",omitzero,") && fv.IsZero() {
			continue
		}
		x, err := encodeValue(fv)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if x == nil && (omitEmpty || isTime(fv)) {
			continue // a zero time is no time: the simulator reads an absent one
		}
		out[name] = x
	}
	return nil
}

func isTime(v reflect.Value) bool {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	return v.Type() == metaTimeType || v.Type() == microTimeType || v.Type() == timeType
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
