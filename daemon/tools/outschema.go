package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

var timeType = reflect.TypeOf(time.Time{})

// outputSchema derives a JSON Schema from the Go type an operation
// returns, so the advertised outputSchema always matches the
// structuredContent. Fields are not required (omitempty ones may be
// absent); pointers, slices and maps may be null.
func outputSchema(v any) json.RawMessage {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := typeSchema(t, map[reflect.Type]bool{})
	b, _ := json.Marshal(s)
	return b
}

func typeSchema(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if t == timeType {
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := typeSchema(t.Elem(), seen)
		return nullable(s)
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": []string{"array", "null"}, "items": typeSchema(t.Elem(), seen)}
	case reflect.Map:
		return map[string]any{"type": []string{"object", "null"}, "additionalProperties": typeSchema(t.Elem(), seen)}
	case reflect.Struct:
		if seen[t] {
			return map[string]any{}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		addStructFields(t, props, seen)
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}

func addStructFields(t reflect.Type, props map[string]any, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addStructFields(ft, props, seen)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		props[name] = typeSchema(f.Type, seen)
	}
}

func nullable(s map[string]any) map[string]any {
	switch ty := s["type"].(type) {
	case string:
		s["type"] = []string{ty, "null"}
	case []string:
		has := false
		for _, x := range ty {
			if x == "null" {
				has = true
			}
		}
		if !has {
			s["type"] = append(ty, "null")
		}
	}
	return s
}
