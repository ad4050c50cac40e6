package jsonrpc

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"unicode/utf8"
)

// TextFault names the first string of a JSON value that cannot be text:
// it holds a NUL character, or bytes (or an unpaired surrogate escape)
// that are not UTF-8. encoding/json replaces the latter with U+FFFD when it
// decodes, and nothing downstream (a database, a file name) holds a NUL,
// so servers refuse both before decoding arguments.
type TextFault struct {
	Path string // the member: a, a.b, a[0]; "" for the value itself
	NUL  bool   // a NUL; else not UTF-8
}

// CheckText returns the first string of raw, a valid JSON value, that is
// not text, at any depth (object members in sorted order); nil when all
// are. A value in plain UTF-8 with no \u escape, the usual one, costs one
// pass.
func CheckText(raw json.RawMessage) *TextFault {
	if utf8.Valid(raw) && !bytes.Contains(raw, []byte(`\u`)) {
		return nil
	}
	return checkValue("", raw)
}

// StringFault reports whether s holds a NUL (nul) or is not UTF-8 (bad).
func StringFault(s string) (nul, bad bool) {
	for i, r := range s {
		switch {
		case r == 0:
			return true, true
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return false, true
			}
		}
	}
	return false, false
}

func checkValue(path string, v json.RawMessage) *TextFault {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '"':
		return checkLiteral(path, v)
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(v, &list) != nil {
			return nil
		}
		for i, e := range list {
			if f := checkValue(path+"["+strconv.Itoa(i)+"]", e); f != nil {
				return f
			}
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return nil
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		prefix := path
		if prefix != "" {
			prefix += "."
		}
		for _, k := range keys {
			if f := checkValue(prefix+k, obj[k]); f != nil {
				return f
			}
		}
	}
	return nil
}

// checkLiteral reads a JSON string literal as written: raw bytes must be
// UTF-8, a \u escape must not be NUL, and a surrogate escape must be a
// high one followed by a low one.
func checkLiteral(path string, lit []byte) *TextFault {
	bad := &TextFault{Path: path}
	for i := 1; i < len(lit)-1; {
		if lit[i] != '\\' {
			r, n := utf8.DecodeRune(lit[i:])
			if r == utf8.RuneError && n == 1 {
				return bad
			}
			i += n
			continue
		}
		if lit[i+1] != 'u' {
			i += 2
			continue
		}
		switch u := hex4(lit[i+2:]); {
		case u == 0:
			return &TextFault{Path: path, NUL: true}
		case u >= 0xDC00 && u <= 0xDFFF:
			return bad
		case u >= 0xD800 && u <= 0xDBFF:
			if i+12 > len(lit) || lit[i+6] != '\\' || lit[i+7] != 'u' {
				return bad
			}
			if lo := hex4(lit[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
				return bad
			}
			i += 12
			continue
		}
		i += 6
	}
	return nil
}

// hex4 reads the four hex digits of a \u escape; -1 when they are not.
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return -1
	}
	return int(n)
}
