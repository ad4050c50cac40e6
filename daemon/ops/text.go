package ops

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Every string an agent gives reaches something that cannot hold it
// whole: PostgreSQL refuses NUL and invalid UTF-8 (SQLSTATE 22021),
// encoding/json replaces invalid bytes with U+FFFD, a file name ends at
// NUL. So the one place arguments are decoded refuses both, naming the
// argument, before any rule of the argument's own type runs.

// CheckText refuses s when it holds a NUL character or is not valid
// UTF-8, with a refusal naming the argument name.
func CheckText(name, s string) error {
	for i, r := range s {
		switch {
		case r == 0:
			return refuseNUL(name)
		case r == utf8.RuneError && !isReplacementAt(s, i):
			return refuseUTF8(name)
		}
	}
	return nil
}

func isReplacementAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && n == 3
}

func refuseNUL(name string) error {
	return refuse(name, "argument %q must be text without NUL characters, and it holds one (\\u0000)", name)
}

func refuseUTF8(name string) error {
	return refuse(name, "argument %q must be valid UTF-8 text, and it holds a byte sequence (or an unpaired surrogate escape) that is not", name)
}

// checkArgsText refuses raw, a JSON object of arguments, when one of its
// strings (at any depth) holds a NUL or is not valid UTF-8: these are
// lost or replaced once decoded, so the raw text is read. Arguments in
// plain UTF-8 with no \u escape, the usual ones, cost one pass.
func checkArgsText(raw json.RawMessage) error {
	if utf8.Valid(raw) && !bytes.Contains(raw, []byte(`\u`)) {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil // not an object: DecodeInput says so
	}
	return checkMembers("", obj)
}

func checkMembers(prefix string, obj map[string]json.RawMessage) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := checkValueText(prefix+k, obj[k]); err != nil {
			return err
		}
	}
	return nil
}

func checkValueText(name string, v json.RawMessage) error {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '"':
		return checkLiteral(name, v)
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(v, &list) != nil {
			return nil
		}
		for i, e := range list {
			if err := checkValueText(name+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return nil
		}
		return checkMembers(name+".", obj)
	}
	return nil
}

// checkLiteral reads a JSON string literal as written: raw bytes must be
// UTF-8, a \u escape must not be NUL, and a surrogate escape must be a
// high one followed by a low one.
func checkLiteral(name string, lit []byte) error {
	for i := 1; i < len(lit)-1; {
		c := lit[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(lit[i:])
			if r == utf8.RuneError && n == 1 {
				return refuseUTF8(name)
			}
			i += n
			continue
		}
		if lit[i+1] != 'u' {
			i += 2
			continue
		}
		u := hex4(lit[i+2:])
		switch {
		case u == 0:
			return refuseNUL(name)
		case u >= 0xDC00 && u <= 0xDFFF:
			return refuseUTF8(name)
		case u >= 0xD800 && u <= 0xDBFF:
			if i+12 > len(lit) || lit[i+6] != '\\' || lit[i+7] != 'u' {
				return refuseUTF8(name)
			}
			if lo := hex4(lit[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
				return refuseUTF8(name)
			}
			i += 12
			continue
		}
		i += 6
	}
	return nil
}

// hex4 reads the four hex digits of a \u escape; -1 when they are not
// (json.Unmarshal already refused such a literal).
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
