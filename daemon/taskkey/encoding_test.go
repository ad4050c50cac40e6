package taskkey

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestKeyAndEncodeWithIsKeyAndEncode: the key folded from the encoding
// taken before the upstream keys were known is the key of the whole.
func TestKeyAndEncodeWithIsKeyAndEncode(t *testing.T) {
	cases := []*Components{
		{Runner: "r", Global: map[string]string{}, Definition: map[string]string{}, Env: map[string]string{}, Files: map[string]string{}, Deps: map[string]string{}},
		{Runner: "vx-key/1 vx/0.1.0", Global: map[string]string{"tsconfig.json": "ab"},
			Definition: map[string]string{"command": "a && b > <c>", "dir": "packages/x"},
			Env:        map[string]string{"NODE_ENV": "", "API": "0123"},
			Files:      map[string]string{"src/a.js": "11", "package.json": "22", "src/\"q\".js": "33"},
			Deps:       map[string]string{"core#build": "k1", "util#build&<>": "k2"}},
		{Runner: "r", Deps: nil},
	}
	for i, c := range cases {
		deps := c.Deps
		c.Deps = nil
		before := c.EncodeBeforeDeps()
		c.Deps = deps
		gotKey, gotEnc := c.KeyAndEncodeWith(before)
		wantKey, wantEnc := c.KeyAndEncode()
		if gotKey != wantKey || !bytes.Equal(gotEnc, wantEnc) {
			t.Errorf("case %d: KeyAndEncodeWith = %s %s, KeyAndEncode = %s %s", i, gotKey, gotEnc, wantKey, wantEnc)
		}
	}
	// An encoding that is not EncodeBeforeDeps' is not trusted.
	c := cases[1]
	if k, _ := c.KeyAndEncodeWith([]byte(`{"runner":"other"}`)); k != c.Key() {
		t.Errorf("a foreign encoding changed the key")
	}
}

// TestEncodeIsJSONMarshal: the direct encoding is encoding/json's, byte
// for byte, whatever the strings hold.
func TestEncodeIsJSONMarshal(t *testing.T) {
	odd := []string{"", "plain", `quo"te`, `back\slash`, "<html>&amp;", "tab\there", "nl\n", "\x00\x1f", "é ü 日本", "\u2028\u2029", "bad\xffutf8", "emoji 🎉", "\x7f"}
	for i, s := range odd {
		c := &Components{Runner: s, Global: map[string]string{s: s, "a": s}, Definition: map[string]string{"command": s},
			Env: map[string]string{}, Files: map[string]string{s + "/f": "h", "z": s}, Deps: map[string]string{s: "k"}}
		want, _ := json.Marshal(c)
		_, got := c.KeyAndEncodeWith(c.EncodeBeforeDeps())
		if !bytes.Equal(got, want) {
			t.Errorf("case %d (%q):\n got %s\nwant %s", i, s, got, want)
		}
	}
	nilMaps := &Components{Runner: "r"}
	want, _ := json.Marshal(nilMaps)
	if _, got := nilMaps.KeyAndEncodeWith(nilMaps.EncodeBeforeDeps()); !bytes.Equal(got, want) {
		t.Errorf("nil maps:\n got %s\nwant %s", got, want)
	}
}
