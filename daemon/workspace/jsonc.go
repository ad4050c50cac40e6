package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vzn/vx/daemon/jsonc"
)

// FileError is a configuration file that could not be read, with the place
// the problem was found when it is known.
type FileError struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	Msg  string `json:"message"`
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// decodeJSONC decodes JSON with comments into v, refusing unknown fields
// when strict is set, and reports errors with file, line and column, and
// the dotted path of the value at fault.
func decodeJSONC(file string, src []byte, v any, strict bool) error {
	if jsonc.DecodePlain(src, v, strict) == nil {
		return nil // no comments, no trailing commas, no error: the common case
	}
	doc, err := jsonc.Parse(src)
	if err != nil {
		var se *jsonc.Error
		if errors.As(err, &se) {
			return &FileError{File: file, Line: se.Line, Col: se.Col, Msg: se.Msg}
		}
		return &FileError{File: file, Msg: err.Error()}
	}
	std := doc.Standard
	dec := json.NewDecoder(bytes.NewReader(std))
	if strict {
		dec.DisallowUnknownFields()
	}
	fail := func(off int64, msg string) error {
		line, col := jsonc.Position(src, int(off))
		return &FileError{File: file, Line: line, Col: col, Msg: msg}
	}
	err = dec.Decode(v)
	if err == nil {
		return nil
	}
	vals := doc.Root().Paths()
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ):
		// Offset is just past the value at fault.
		start := max(typ.Offset-1, 0)
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
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		key := strings.Trim(name, `"`)
		off := int(dec.InputOffset())
		if at, ok := keyBefore(vals, key, off); ok {
			return fail(int64(at.KeyOff), fmt.Sprintf("unknown key %q", at.Path))
		}
		return fail(int64(off), "unknown key "+name)
	}
	// Errors from our own UnmarshalJSON methods carry no offset: find the
	// value they are about.
	msg := err.Error()
	var pred func(jsonc.Path) bool
	switch {
	case strings.HasPrefix(msg, "mcp.run:"):
		pred = func(v jsonc.Path) bool { return v.Path == "mcp.run" }
	case strings.HasPrefix(msg, "exec.env entry:"):
		pred = func(v jsonc.Path) bool {
			return strings.Contains(v.Path, ".exec.env.") && strings.Count(v.Path[strings.Index(v.Path, ".exec.env.")+10:], ".") == 0 && v.Kind != jsonc.String && v.Kind != jsonc.Object
		}
	}
	if pred != nil {
		for _, at := range vals {
			if !pred(at) {
				continue
			}
			if strings.HasPrefix(msg, "exec.env entry:") {
				msg = at.Path + ": expected a string or {\"value\": string, \"secret\": bool}"
			}
			return fail(int64(at.Off), msg)
		}
	}
	return fail(dec.InputOffset(), msg)
}

// keyBefore is the member named name whose key is nearest before off.
func keyBefore(vals []jsonc.Path, name string, off int) (jsonc.Path, bool) {
	var best jsonc.Path
	found := false
	for _, v := range vals {
		if v.KeyOff >= 0 && v.Key == name && v.KeyOff <= off && (!found || v.KeyOff > best.KeyOff) {
			best, found = v, true
		}
	}
	return best, found
}

func jsonTypeName(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "a whole number"
	case strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "bool":
		return "true or false"
	case kind == "string":
		return "a string"
	case kind == "slice", kind == "array":
		return "an array"
	case kind == "map", kind == "struct", kind == "ptr":
		return "an object"
	}
	return kind
}
