package jsonrpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// members are the envelope members of one message object: the raw value
// of each (nil when absent; the last one when a name repeats, as when
// decoding into a map). Members of other names are ignored.
type members struct {
	has  uint8 // bit i: vals[i] present
	vals [6]json.RawMessage
}

// The envelope member names, in the order of members.vals.
var memberNames = [6]string{"id", "jsonrpc", "method", "params", "result", "error"}

func (f *members) get(name string) (json.RawMessage, bool) {
	for i, n := range memberNames {
		if n == name {
			return f.vals[i], f.has&(1<<i) != 0
		}
	}
	return nil, false
}

func (f *members) set(name []byte, v json.RawMessage) {
	for i, n := range memberNames {
		if string(name) == n {
			f.vals[i] = v
			f.has |= 1 << i
			return
		}
	}
}

// readMembers reads the members of data, a valid JSON object. The values
// are copied out of data, which the caller may reuse (a scanner's line).
// A name spelt with an escape takes the general decoder, which unescapes
// it; every other object is read in one pass without reflection.
func readMembers(data []byte) (members, error) {
	if f, ok := scanMembers(bytes.Clone(data)); ok {
		return f, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return members{}, err
	}
	var f members
	for k, v := range m {
		f.set([]byte(k), v)
	}
	return f, nil
}

// scanMembers reads the top-level members of a valid JSON object; ok is
// false when it cannot (a name with an escape, or data not as expected),
// and the caller decodes it the general way.
func scanMembers(data []byte) (f members, ok bool) {
	ok = ScanObject(data, func(name []byte, v json.RawMessage) bool {
		f.set(name, v)
		return true
	})
	return f, ok
}

// ScanObject calls each with the name (as spelt, without its quotes) and
// raw value of every top-level member of data, a valid JSON object (such
// as a message's params once Decode has taken the body), in order, in one
// pass without reflection; the values alias data. It reports false, having
// perhaps called each for some members, when it cannot read data so: a
// name spelt with an escape (which only a decoder unescapes), data that is
// not an object, or each answering false. The caller then decodes data
// the general way.
func ScanObject(data []byte, each func(name []byte, value json.RawMessage) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end, escaped := quotedEnd(data, i)
		if escaped || end < 0 {
			return false
		}
		name := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vEnd := valueEnd(data, i)
		if vEnd < 0 || !each(name, json.RawMessage(data[i:vEnd:vEnd])) {
			return false
		}
		i = skipSpace(data, vEnd)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return false
		}
	}
	return false
}

// StringValue decodes a JSON string value as json.Unmarshal into a string
// does, a plain one (no escape, valid UTF-8) without the decoder.
func StringValue(raw json.RawMessage, s *string) error { return stringValue(raw, s) }

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// quotedEnd is the end (exclusive) of the string opening at data[i], -1
// when it does not end, and whether it holds an escape.
func quotedEnd(data []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// valueEnd is the end (exclusive) of the JSON value starting at data[i],
// -1 when there is none.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		end, _ := quotedEnd(data, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, _ := quotedEnd(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// stringValue decodes a JSON string as json.Unmarshal does: a plain one
// (no escape, valid UTF-8) directly, any other through the decoder.
func stringValue(raw json.RawMessage, s *string) error {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		in := raw[1 : n-1]
		if bytes.IndexByte(in, '\\') < 0 && bytes.IndexByte(in, '"') < 0 && utf8.Valid(in) && !hasControl(in) {
			*s = string(in)
			return nil
		}
	}
	return json.Unmarshal(raw, s)
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
