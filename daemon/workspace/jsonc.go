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
// when strict is set, and reports errors with file, line and column.
func decodeJSONC(file string, src []byte, v any, strict bool) error {
	std := standardize(src)
	dec := json.NewDecoder(bytes.NewReader(std))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			line, col := position(src, dec.InputOffset())
			return &FileError{File: file, Line: line, Col: col, Msg: "unexpected text after the JSON value"}
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the offending byte; point at it.
		line, col := position(src, max(syn.Offset-1, 0))
		return &FileError{File: file, Line: line, Col: col, Msg: syn.Error()}
	case errors.As(err, &typ):
		line, col := position(src, valueStart(std, typ.Offset))
		field := typ.Field
		if field == "" {
			field = "value"
		}
		return &FileError{File: file, Line: line, Col: col, Msg: fmt.Sprintf("%s: expected %s, found %s", field, typ.Type, typ.Value)}
	case errors.Is(err, io.EOF):
		return &FileError{File: file, Line: 1, Col: 1, Msg: "empty file: expected a JSON object"}
	default:
		off := dec.InputOffset()
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if at := keyOffset(std, name, off); at >= 0 {
				off = at
			}
			line, col := position(src, off)
			return &FileError{File: file, Line: line, Col: col, Msg: fmt.Sprintf("unknown key %s", name)}
		}
		line, col := position(src, off)
		return &FileError{File: file, Line: line, Col: col, Msg: err.Error()}
	}
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
