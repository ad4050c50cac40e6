package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	var ee *entryError
	switch {
	case errors.As(err, &ee):
		return explainEntry(vals, std, ee, fail)
	case errors.As(err, &typ):
		return typeMismatch(vals, typ, 0, fail)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		key := strings.Trim(name, `"`)
		off := int(dec.InputOffset())
		if at, ok := keyBefore(vals, key, off); ok {
			known, _ := keysAt(doc.Root(), reflect.TypeOf(v), at.KeyOff)
			return fail(int64(at.KeyOff), unknownKey(at.Path, key, known))
		}
		return fail(int64(off), "unknown key "+name)
	}
	// Errors from our own UnmarshalJSON methods carry no offset: find the
	// value they are about.
	msg := err.Error()
	if strings.HasPrefix(msg, "mcp.run:") {
		for _, at := range vals {
			if at.Path == "mcp.run" {
				return fail(int64(at.Off), msg)
			}
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
