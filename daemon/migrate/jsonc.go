package migrate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// kind is the type of a JSON value.
type kind int

const (
	kObject kind = iota
	kArray
	kString
	kNumber
	kBool
	kNull
)

func (k kind) String() string {
	return [...]string{"an object", "an array", "a string", "a number", "a boolean", "null"}[k]
}

// node is one parsed JSON value with the byte offset it starts at, so that
// todos can point at the line and column of the key they are about.
type node struct {
	kind    kind
	off     int
	str     string // string value, or a number's text
	b       bool
	members []member // object members in source order
	items   []*node  // array items
}

type member struct {
	key    string
	keyOff int
	val    *node
}

// get returns the value of key (the last one when a key repeats), or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// strings returns the string items of an array node; ok is false when n is
// not an array of strings.
func (n *node) strings() (out []string, ok bool) {
	if n == nil || n.kind != kArray {
		return nil, false
	}
	out = []string{}
	for _, it := range n.items {
		if it.kind != kString {
			return nil, false
		}
		out = append(out, it.str)
	}
	return out, true
}

// value converts n to the value encoding/json would produce.
func (n *node) value() any {
	switch n.kind {
	case kObject:
		m := map[string]any{}
		for _, mb := range n.members {
			m[mb.key] = mb.val.value()
		}
		return m
	case kArray:
		a := make([]any, len(n.items))
		for i, it := range n.items {
			a[i] = it.value()
		}
		return a
	case kString:
		return n.str
	case kNumber:
		return json.Number(n.str)
	case kBool:
		return n.b
	}
	return nil
}

// decode stores n into v through encoding/json.
func (n *node) decode(v any) error {
	b, err := json.Marshal(n.value())
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// syntaxError is a parse failure at a byte offset.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// parseJSONC parses JSON that may hold // and /* */ comments and trailing
// commas, as turbo.json, nx.json and vx's own files may.
func parseJSONC(src []byte) (*node, error) {
	p := &parser{src: src}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i >= len(src) {
		return nil, &syntaxError{0, "empty file: expected a JSON object"}
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i < len(src) {
		return nil, &syntaxError{p.i, "unexpected text after the JSON value"}
	}
	return n, nil
}

type parser struct {
	src []byte
	i   int
}

func (p *parser) errf(off int, format string, args ...any) error {
	return &syntaxError{off, fmt.Sprintf(format, args...)}
}

// space skips white space and comments.
func (p *parser) space() error {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '/':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '*':
			start := p.i
			p.i += 2
			for {
				if p.i+1 >= len(p.src) {
					return p.errf(start, "unterminated /* comment")
				}
				if p.src[p.i] == '*' && p.src[p.i+1] == '/' {
					p.i += 2
					break
				}
				p.i++
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) describe() string {
	if p.i >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.i:])
	return strconv.QuoteRune(r)
}

func (p *parser) value(depth int) (*node, error) {
	if depth > 500 {
		return nil, p.errf(p.i, "nesting too deep")
	}
	if p.i >= len(p.src) {
		return nil, p.errf(p.i, "unexpected end of file: expected a value")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: kString, off: start, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		for p.i < len(p.src) && isNumberByte(p.src[p.i]) {
			p.i++
		}
		text := string(p.src[start:p.i])
		if !json.Valid([]byte(text)) {
			return nil, p.errf(start, "%q is not a number", text)
		}
		return &node{kind: kNumber, off: start, str: text}, nil
	default:
		for _, lit := range []struct {
			text string
			n    node
		}{{"true", node{kind: kBool, b: true}}, {"false", node{kind: kBool}}, {"null", node{kind: kNull}}} {
			if len(p.src)-p.i >= len(lit.text) && string(p.src[p.i:p.i+len(lit.text)]) == lit.text {
				p.i += len(lit.text)
				n := lit.n
				n.off = start
				return &n, nil
			}
		}
		return nil, p.errf(start, "unexpected %s: expected a value", p.describe())
	}
}

func isNumberByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')
}

func (p *parser) string() (string, error) {
	start := p.i
	p.i++ // opening quote
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == '\\':
			p.i += 2
		case c == '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.src[start:p.i], &s); err != nil {
				return "", p.errf(start, "invalid escape in string")
			}
			return s, nil
		case c == '\n':
			return "", p.errf(start, "unterminated string")
		default:
			p.i++
		}
	}
	return "", p.errf(start, "unterminated string")
}

func (p *parser) object(depth int) (*node, error) {
	n := &node{kind: kObject, off: p.i}
	p.i++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			return n, nil
		}
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.errf(p.i, "unexpected %s: expected a quoted key or '}'", p.describe())
		}
		keyOff := p.i
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.errf(p.i, "unexpected %s: expected ':' after key %q", p.describe(), key)
		}
		p.i++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyOff: keyOff, val: v})
		if err := p.space(); err != nil {
			return nil, err
		}
		switch {
		case p.i < len(p.src) && p.src[p.i] == ',':
			p.i++
		case p.i < len(p.src) && p.src[p.i] == '}':
		default:
			return nil, p.errf(p.i, "unexpected %s: expected ',' or '}' after the value of %q", p.describe(), key)
		}
	}
}

func (p *parser) array(depth int) (*node, error) {
	n := &node{kind: kArray, off: p.i}
	p.i++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			return n, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
		if err := p.space(); err != nil {
			return nil, err
		}
		switch {
		case p.i < len(p.src) && p.src[p.i] == ',':
			p.i++
		case p.i < len(p.src) && p.src[p.i] == ']':
		default:
			return nil, p.errf(p.i, "unexpected %s: expected ',' or ']' in array", p.describe())
		}
	}
}

// position converts a byte offset into a 1-based line and column (in
// characters, as editors count them).
func position(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line, col = 1, 1
	for i := 0; i < off; {
		r, size := utf8.DecodeRune(src[i:])
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i += size
	}
	return line, col
}
