// Package jsonc reads JSON with comments and trailing commas — vx's own
// configuration files and the turbo.json, nx.json and project.json files
// vx init translates — over github.com/tailscale/hujson. It gives the
// document as plain JSON of the same length (for encoding/json), a value
// tree with byte offsets, and one position convention for every error:
// line and column, 1-based, columns counted in characters.
package jsonc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// maxDepth bounds how deeply a document may nest.
const maxDepth = 500

// Error is a document that is not JSON with comments, at a byte offset
// and at the line and column that offset is (columns in characters).
type Error struct {
	Off       int
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Doc is a parsed document.
type Doc struct {
	Src      []byte // the text as given
	Standard []byte // the text with comments and trailing commas blanked: plain JSON, same offsets
	value    hujson.Value
	root     *Node
}

// Parse parses src. A syntax error is an *Error.
func Parse(src []byte) (*Doc, error) {
	if err := checkDepth(src); err != nil {
		return nil, err
	}
	// hujson refuses a line comment that ends the file without a newline:
	// parse a copy with one added (every offset before it is unchanged).
	buf := append(bytes.Clone(src), '\n')
	v, err := hujson.Parse(buf)
	if err != nil {
		return nil, syntaxError(src, v, err)
	}
	// Standardize blanks comments and trailing commas in place, keeping
	// every offset (the tree built later reads only values and offsets).
	v.Standardize()
	return &Doc{Src: src, Standard: v.Pack()[:len(src)], value: v}, nil
}

// Root is the document's value tree, built on first use (a load that
// decodes cleanly never needs it).
func (d *Doc) Root() *Node {
	if d.root == nil {
		d.root = build(&d.value)
	}
	return d.root
}

// checkDepth refuses a document nested deeper than maxDepth before hujson,
// which recurses once per level, parses it.
func checkDepth(src []byte) error {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return nil // unterminated: the parser says so
			}
			i += 2 + end + 1
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return errorf(src, i, "nesting deeper than %d levels", maxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// errorf is an *Error at off in src.
func errorf(src []byte, off int, format string, args ...any) *Error {
	off = min(max(off, 0), len(src))
	line, col := Position(src, off)
	return &Error{Off: off, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// syntaxError turns a hujson parse error (which gives a line and a byte
// column) into an *Error at the offending character, worded for a user.
func syntaxError(src []byte, partial hujson.Value, err error) error {
	var line, bcol int
	if _, serr := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &line, &bcol); serr != nil {
		return errorf(src, 0, "%v", err)
	}
	off := lineStart(src, line) + bcol - 1
	msg := err.Error()
	if inner := errors.Unwrap(err); inner != nil {
		msg = inner.Error()
	}
	switch {
	case partial.Value == nil && strings.HasPrefix(msg, "parsing value:"):
		return errorf(src, 0, "empty file: expected a JSON object")
	case strings.HasPrefix(msg, "parsing comment:"):
		return errorf(src, off, "a /* comment is not closed")
	case strings.HasPrefix(msg, "parsing string:"):
		return errorf(src, openingQuote(src), "a string is not closed")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(src, len(src), "the file ends early: a brace, bracket or string is not closed")
	case strings.HasPrefix(msg, "invalid literal:"):
		// Never quote the text: it may be a secret someone forgot to quote.
		if off < len(src) && src[off] == '"' {
			return errorf(src, off, "a string with an invalid escape or a control character")
		}
		return errorf(src, off, "not a JSON value: expected a string, a number, true, false or null")
	case strings.HasSuffix(msg, "after top-level value"):
		r, _ := utf8.DecodeRune(src[off:])
		return errorf(src, off, "unexpected %q after the end of the JSON object", string(r))
	case strings.HasPrefix(msg, "invalid character ',' at start of value"):
		// A comma after a comma: when the closing bracket follows, the
		// second is a trailing comma and the bracket is where a value was
		// expected.
		after := bytes.TrimLeft(src[off+1:], " \t\r\n")
		if len(after) > 0 && (after[0] == ']' || after[0] == '}') {
			at := len(src) - len(after)
			return errorf(src, at, "invalid character %q where a value was expected", string(after[0]))
		}
	}
	return errorf(src, off, "%s", msg)
}

// openingQuote is where the string that runs to the end of src opens: the
// last quote not escaped by a backslash (any later one would close it).
func openingQuote(src []byte) int {
	for i := len(src) - 1; i >= 0; i-- {
		if src[i] != '"' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
	}
	return len(src)
}

// lineStart is the offset of the first byte of the 1-based line.
func lineStart(src []byte, line int) int {
	off := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return off
}

// Position is the 1-based line and column of the byte offset off in src,
// the column counted in characters (as editors count them).
func Position(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(src[start:off])
}
