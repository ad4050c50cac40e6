package taskkey

import (
	"bytes"
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
