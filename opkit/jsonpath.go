package opkit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// JSONError words err, an error from decoding a JSON document into dst
// (a pointer), for the person or agent who wrote the document: a value of
// the wrong type is named by its path of JSON keys, without the Go name of
// a struct a type embeds (wire.RunRequest's Selection), which the document
// has no key for. Any other error is worded as encoding/json words it.
func JSONError(err error, dst any) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" || dst == nil {
		return err.Error()
	}
	field := jsonPath(reflect.TypeOf(dst), te.Field)
	return "json: cannot unmarshal " + te.Value + " into Go struct field " + te.Struct + "." + field + " of type " + te.Type.String()
}

// jsonPath is field, encoding/json's dotted path into t, less the
// segments that name an embedded struct.
func jsonPath(t reflect.Type, field string) string {
	var out []string
	for _, seg := range strings.Split(field, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			out, t = append(out, seg), nil
			continue
		}
		if f, ok := t.FieldByName(seg); ok && f.Anonymous && f.Tag.Get("json") == "" {
			t = f.Type
			continue
		}
		out, t = append(out, seg), fieldType(t, seg)
	}
	return strings.Join(out, ".")
}

// fieldType is the type of t's field (promoted ones included) whose JSON
// key is key; nil when there is none.
func fieldType(t reflect.Type, key string) reflect.Type {
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if !f.Anonymous && strings.EqualFold(name, key) {
			return f.Type
		}
	}
	return nil
}
