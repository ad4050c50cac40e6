package tools

import (
	"encoding"
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

var (
	jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

// marshalsItself reports how t encodes when it has its own method, as
// encoding/json would call it: "text" (a JSON string), "json" (any JSON) or
// "" (by its Go shape).
func marshalsItself(t reflect.Type) string {
	pt := reflect.PointerTo(t)
	switch {
	case t.Kind() == reflect.Pointer:
		return ""
	case t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler):
		return "json"
	case t.Implements(textMarshaler) || pt.Implements(textMarshaler):
		return "text"
	}
	return ""
}

func typeSchema(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if t == timeType {
		return map[string]any{"type": "string"}
	}
	switch marshalsItself(t) {
	case "json":
		return map[string]any{}
	case "text":
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
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && marshalsItself(t.Elem()) == "" {
			// encoding/json writes a []byte as a base64 string.
			return map[string]any{"type": []string{"string", "null"}}
		}
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
		for _, f := range visibleFields(t) {
			if f.asString {
				props[f.name] = map[string]any{"type": "string"}
				continue
			}
			props[f.name] = typeSchema(f.typ, seen)
		}
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}

// jsonField is a field encoding/json writes: its name, type, how deep it
// is embedded and whether a tag named it.
type jsonField struct {
	name     string
	typ      reflect.Type
	depth    int
	tagged   bool
	asString bool // the ",string" option
}

// visibleFields lists the fields of t that encoding/json writes, with its
// rule for names that repeat: the shallowest wins, then the one a tag
// named, and when that still leaves two, neither is written.
func visibleFields(t reflect.Type) []jsonField {
	var all []jsonField
	collectFields(t, 0, map[reflect.Type]bool{}, &all)
	byName := map[string][]jsonField{}
	var order []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []jsonField
	for _, name := range order {
		if f, ok := dominant(byName[name]); ok {
			out = append(out, f)
		}
	}
	return out
}

func dominant(fs []jsonField) (jsonField, bool) {
	minDepth := fs[0].depth
	for _, f := range fs {
		minDepth = min(minDepth, f.depth)
	}
	var top, tagged []jsonField
	for _, f := range fs {
		if f.depth == minDepth {
			top = append(top, f)
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
	}
	switch {
	case len(top) == 1:
		return top[0], true
	case len(tagged) == 1:
		return tagged[0], true
	}
	return jsonField{}, false
}

func collectFields(t reflect.Type, depth int, visiting map[reflect.Type]bool, out *[]jsonField) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous {
			if !f.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				collectFields(ft, depth+1, visiting, out)
				continue
			}
		} else if !f.IsExported() {
			continue
		}
		jf := jsonField{name: name, typ: f.Type, depth: depth, tagged: name != ""}
		if name == "" {
			jf.name = f.Name
		}
		if strings.Contains(","+opts+",", ",string,") {
			switch ft.Kind() {
			case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
				jf.asString = true
			}
		}
		*out = append(*out, jf)
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
