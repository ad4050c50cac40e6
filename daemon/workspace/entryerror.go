package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/jsonc"
	"github.com/vzn/vx/internal/suggest"
)

// An entry with a shorthand (a plugins entry, an exec.env variable, the
// remoteCache object) decodes itself with its own strict decoder, whose
// errors know neither the file's offsets nor the entry's path, and name
// the Go type it decodes into. entryError carries what decodeJSONC needs
// to say it in the configuration's terms, at the entry's line and column.

// entryError is an entry (raw, the JSON it was given) that did not
// decode: neither of the forms it takes (err nil), or its object form's
// strict decoder refused it (err: an unknown field or a wrong type, at an
// offset inside raw).
type entryError struct {
	raw      []byte
	expected string       // what the entry takes, in the configuration's terms
	keys     reflect.Type // the object form, whose keys a misspelt one is near
	err      error
}

func (e *entryError) Error() string {
	if e.err == nil {
		return "expected " + e.expected
	}
	return fmt.Sprintf("expected %s (%v)", e.expected, e.err)
}

// decodeEntry decodes raw, an entry's object form, strictly into dst (a
// pointer to a struct), or is the entryError saying why not.
func decodeEntry(raw []byte, dst any, expected string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return &entryError{raw: raw, expected: expected, keys: reflect.TypeOf(dst).Elem(), err: err}
	}
	return nil
}

// explainEntry is ee as a file error: the entry found by its text among
// the document's values (the first that reads so: decoding stops at the
// first error), and the key or value at fault inside it.
func explainEntry(vals []jsonc.Path, std []byte, ee *entryError, fail func(off int64, msg string) error) error {
	var entry jsonc.Path
	found := false
	for _, v := range vals {
		if v.End <= len(std) && bytes.Equal(std[v.Off:v.End], ee.raw) {
			entry, found = v, true
			break
		}
	}
	if !found {
		return fail(int64(len(std)), ee.Error())
	}
	var typ *json.UnmarshalTypeError
	switch {
	case ee.err == nil:
		return fail(int64(entry.Off), fmt.Sprintf("%s: expected %s, found %s", entry.Path, ee.expected, entry.Kind))
	case errors.As(ee.err, &typ):
		return typeMismatch(vals, typ, int64(entry.Off), fail)
	}
	if name, ok := strings.CutPrefix(ee.err.Error(), "json: unknown field "); ok {
		key := strings.Trim(name, `"`)
		for _, m := range entry.Members {
			if m.Key == key {
				return fail(int64(m.KeyOff), unknownKey(joinPath(entry.Path, key), key, jsonKeys(ee.keys)))
			}
		}
	}
	return fail(int64(entry.Off), fmt.Sprintf("%s: expected %s", entry.Path, ee.expected))
}

// typeMismatch is a value of the wrong JSON type, typ's, which decoding
// from base (the offset its text starts at in the file) found.
func typeMismatch(vals []jsonc.Path, typ *json.UnmarshalTypeError, base int64, fail func(off int64, msg string) error) error {
	// Offset is just past the value at fault.
	start := base + max(typ.Offset-1, 0)
	field := typ.Field
	if at, ok := jsonc.Innermost(vals, int(start)); ok {
		start = int64(at.Off)
		if at.Path != "" {
			field = at.Path
		}
	}
	if field == "" {
		field = "value"
	}
	// Only the kind found ("number", not "number 1.5"): a value that
	// does not type-check is never quoted.
	found, _, _ := strings.Cut(typ.Value, " ")
	return fail(start, fmt.Sprintf("%s: expected %s, found %s", field, jsonTypeName(typ.Type.Kind().String()), found))
}

// unknownKey is the refusal of key, at path, where the keys known there
// are known (none for a map, whose keys are names of the user's).
func unknownKey(path, key string, known []string) string {
	hint := ""
	if len(known) > 0 {
		hint = suggest.Close(key, known)
	}
	return fmt.Sprintf("unknown key %q%s", path, hint)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// keysAt is the keys known in the object holding the member whose key
// starts at keyOff, n being a value of Go type t: the JSON names of that
// object's struct, or nil for a map or a place t does not reach.
func keysAt(n *jsonc.Node, t reflect.Type, keyOff int) ([]string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == jsonc.Object && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
		for _, m := range n.Members {
			if m.KeyOff == keyOff {
				if t.Kind() == reflect.Map {
					return nil, true
				}
				return jsonKeys(t), true
			}
			elem := t
			if t.Kind() == reflect.Map {
				elem = t.Elem()
			} else if f, ok := jsonField(t, m.Key); ok {
				elem = f
			} else {
				continue
			}
			if keys, ok := keysAt(m.Val, elem, keyOff); ok {
				return keys, true
			}
		}
	case n.Kind == jsonc.Array && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for _, it := range n.Items {
			if keys, ok := keysAt(it, t.Elem(), keyOff); ok {
				return keys, true
			}
		}
	}
	return nil, false
}

// jsonKeys are the JSON names of struct t's fields, as encoding/json
// reads them (embedded structs' fields promoted).
func jsonKeys(t reflect.Type) []string {
	var out []string
	for _, f := range reflect.VisibleFields(t) {
		if name, ok := jsonName(f); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// jsonField is the type of struct t's field JSON names name.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	for _, f := range reflect.VisibleFields(t) {
		if n, ok := jsonName(f); ok && n == name {
			return f.Type, true
		}
	}
	return nil, false
}

// jsonName is the name encoding/json gives f, ok false for a field it
// skips (unexported, "-", or an embedded struct whose fields it promotes).
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() && !f.Anonymous {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if f.Anonymous && name == "" {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}
