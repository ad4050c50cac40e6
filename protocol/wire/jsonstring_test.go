package wire

import (
	"encoding/json"
	"testing"
)

// AppendJSONString writes what json.Marshal writes for a string, byte for
// byte: every ASCII character alone and inside text (the escaped ones:
// quote, backslash, <, >, &, control characters), commands as tasks write
// them, and non-ASCII, invalid UTF-8, U+2028 and U+2029.
func TestAppendJSONStringIsMarshal(t *testing.T) {
	cases := []string{"", "plain", `mkdir -p dist && cat src/*.js > dist/index.js && echo built $npm_package_name`,
		`a "quoted" \ back\slash`, "<tag attr='x'>&amp;</tag>", "tab\tnew\nline\r", "caf\u00e9", "\u2028\u2029", "bad \xff utf8", "\x7f del"}
	for c := 0; c < 128; c++ {
		cases = append(cases, string(rune(c)), "x"+string(rune(c))+"y&")
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := AppendJSONString([]byte("prefix:"), s); string(got) != "prefix:"+string(want) {
			t.Errorf("%q: %s, json.Marshal %s", s, got, want)
		}
	}
}
