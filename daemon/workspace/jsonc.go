package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// standardize turns JSON with comments and trailing commas into plain JSON
// of the same length, so that byte offsets in decoder errors still point at
// the user's text.
func standardize(src []byte) []byte {
	out := bytes.Clone(src)
	const (
		code = iota
		str
		line
		block
	)
	state := code
	lastSignificant := -1 // index of the last non-space code byte
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch state {
		case str:
			if c == '\\' {
				i++
			} else if c == '"' {
				state = code
				lastSignificant = i
			}
		case line:
			if c == '\n' {
				state = code
			} else {
				out[i] = ' '
			}
		case block:
			if c == '*' && i+1 < len(out) && out[i+1] == '/' {
				out[i], out[i+1] = ' ', ' '
				i++
				state = code
			} else if c != '\n' {
				out[i] = ' '
			}
		default:
			switch {
			case c == '"':
				state = str
			case c == '/' && i+1 < len(out) && out[i+1] == '/':
				out[i], out[i+1] = ' ', ' '
				i++
				state = line
			case c == '/' && i+1 < len(out) && out[i+1] == '*':
				out[i], out[i+1] = ' ', ' '
				i++
				state = block
			case c == '}' || c == ']':
				if lastSignificant >= 0 && out[lastSignificant] == ',' {
					out[lastSignificant] = ' '
				}
				lastSignificant = i
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			default:
				lastSignificant = i
			}
		}
	}
	return out
}

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

// position converts a byte offset into a 1-based line and column.
func position(src []byte, off int64) (line, col int) {
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	line, col = 1, 1
	for _, c := range src[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// decodeJSONC decodes JSON with comments into v, refusing unknown fields
// when strict is set, and reports errors with file, line and column, and
// the dotted path of the value at fault.
func decodeJSONC(file string, src []byte, v any, strict bool) error {
	std := standardize(src)
	dec := json.NewDecoder(bytes.NewReader(std))
	if strict {
		dec.DisallowUnknownFields()
	}
	fail := func(off int64, msg string) error {
		line, col := position(src, off)
		return &FileError{File: file, Line: line, Col: col, Msg: msg}
	}
	err := dec.Decode(v)
	if err == nil {
		rest := dec.InputOffset()
		for rest < int64(len(std)) && (std[rest] == ' ' || std[rest] == '\t' || std[rest] == '\n' || std[rest] == '\r') {
			rest++
		}
		if rest < int64(len(std)) {
			return fail(rest, fmt.Sprintf("unexpected %q after the end of the JSON object", string(std[rest])))
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the offending byte; point at it.
		return fail(max(syn.Offset-1, 0), syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fail(int64(len(std)), "the file ends early: a brace, bracket or string is not closed")
	case errors.Is(err, io.EOF):
		return fail(0, "empty file: expected a JSON object")
	}
	vals := scanValues(std)
	switch {
	case errors.As(err, &typ):
		start := valueStart(std, typ.Offset)
		field := typ.Field
		if at, ok := innermostAt(vals, start); ok && at.path != "" {
			field, start = at.path, at.start
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
		off := dec.InputOffset()
		if at, ok := keyBefore(vals, key, off); ok {
			if ko := keyOffset(std, name, at.start); ko >= 0 {
				return fail(ko, fmt.Sprintf("unknown key %q", at.path))
			}
			return fail(at.start, fmt.Sprintf("unknown key %q", at.path))
		}
		return fail(off, "unknown key "+name)
	}
	// Errors from our own UnmarshalJSON methods carry no offset: find the
	// value they are about.
	msg := err.Error()
	var pred func(jsonValue) bool
	switch {
	case strings.HasPrefix(msg, "mcp.run:"):
		pred = func(v jsonValue) bool { return v.path == "mcp.run" }
	case strings.HasPrefix(msg, "exec.env entry:"):
		pred = func(v jsonValue) bool {
			return strings.Contains(v.path, ".exec.env.") && strings.Count(v.path[strings.Index(v.path, ".exec.env.")+10:], ".") == 0 && v.kind != '"' && v.kind != '{'
		}
	}
	if pred != nil {
		if at, ok := firstMatching(vals, pred); ok {
			if strings.HasPrefix(msg, "exec.env entry:") {
				msg = at.path + ": expected a string or {\"value\": string, \"secret\": bool}"
			}
			return fail(at.start, msg)
		}
	}
	return fail(dec.InputOffset(), msg)
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

// valueStart finds where the value that ends at off begins: after the
// nearest preceding ':' (or '[' / ',' in an array), past whitespace.
func valueStart(std []byte, off int64) int64 {
	if off > int64(len(std)) {
		off = int64(len(std))
	}
	i := off - 1
	for i >= 0 && (std[i] == ' ' || std[i] == '\t' || std[i] == '\n' || std[i] == '\r') {
		i--
	}
	if i >= 0 && std[i] == '"' { // a string: find its opening quote
		for j := i - 1; j >= 0; j-- {
			if std[j] == '"' && (j == 0 || std[j-1] != '\\') {
				return int64(j)
			}
		}
	}
	for i >= 0 && std[i] != ':' && std[i] != '[' && std[i] != ',' {
		i--
	}
	i++
	for i < off && (std[i] == ' ' || std[i] == '\t' || std[i] == '\n' || std[i] == '\r') {
		i++
	}
	return i
}

// keyOffset finds the quoted key name (as quoted in the error) nearest
// before off.
func keyOffset(std []byte, quoted string, off int64) int64 {
	if off > int64(len(std)) {
		off = int64(len(std))
	}
	return int64(bytes.LastIndex(std[:off], []byte(quoted)))
}
