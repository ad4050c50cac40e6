package workspace

import (
	"bytes"
	"encoding/json"
	"strings"
)

// jsonValue is one value of a document: its dotted path and where it
// starts and ends.
type jsonValue struct {
	path       string
	start, end int64
	kind       byte // '{', '[', '"', or the first byte of a literal
}

// scanValues lists every value of a syntactically valid document with its
// path ("tasks.build.cache"), in document order. Array elements are
// "list[2]".
func scanValues(std []byte) []jsonValue {
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber()
	var out []jsonValue
	type frame struct {
		path   string
		array  bool
		index  int
		key    string
		keyNow bool // the next string token is a key
		at     int  // index into out of the container's own value
	}
	var stack []*frame
	skipSpace := func(off int64) int64 {
		for off < int64(len(std)) && (std[off] == ' ' || std[off] == '\t' || std[off] == '\n' || std[off] == '\r' || std[off] == ':' || std[off] == ',') {
			off++
		}
		return off
	}
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.array {
			p := f.path + "[" + itoa(f.index) + "]"
			f.index++
			return p
		}
		if f.path == "" {
			return f.key
		}
		return f.path + "." + f.key
	}
	for {
		before := skipSpace(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			f := stack[len(stack)-1]
			out[f.at].end = dec.InputOffset()
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && !stack[len(stack)-1].array {
				stack[len(stack)-1].keyNow = true
			}
			continue
		}
		if len(stack) > 0 {
			f := stack[len(stack)-1]
			if !f.array && f.keyNow {
				f.key, _ = tok.(string)
				f.keyNow = false
				continue
			}
		}
		path := childPath()
		v := jsonValue{path: path, start: before, end: dec.InputOffset()}
		if before < int64(len(std)) {
			v.kind = std[before]
		}
		out = append(out, v)
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			stack = append(stack, &frame{path: path, array: d == '[', keyNow: d == '{', at: len(out) - 1})
			continue
		}
		if len(stack) > 0 && !stack[len(stack)-1].array {
			stack[len(stack)-1].keyNow = true
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// innermostAt is the deepest value whose span holds off.
func innermostAt(vals []jsonValue, off int64) (jsonValue, bool) {
	var best jsonValue
	found := false
	for _, v := range vals {
		if v.start <= off && off < v.end && (!found || v.start >= best.start) {
			best, found = v, true
		}
	}
	return best, found
}

// keyBefore finds the key named name nearest before off and its value.
func keyBefore(vals []jsonValue, name string, off int64) (jsonValue, bool) {
	var best jsonValue
	found := false
	for _, v := range vals {
		last := v.path
		if i := strings.LastIndexByte(last, '.'); i >= 0 {
			last = last[i+1:]
		}
		if last == name && v.start <= off && (!found || v.start > best.start) {
			best, found = v, true
		}
	}
	return best, found
}

// firstMatching is the first value whose path matches pred.
func firstMatching(vals []jsonValue, pred func(jsonValue) bool) (jsonValue, bool) {
	for _, v := range vals {
		if pred(v) {
			return v, true
		}
	}
	return jsonValue{}, false
}
