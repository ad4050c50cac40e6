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
		before := c.EncodeBeforeDeps(len(deps))
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
		_, got := c.KeyAndEncodeWith(c.EncodeBeforeDeps(1))
		if !bytes.Equal(got, want) {
			t.Errorf("case %d (%q):\n got %s\nwant %s", i, s, got, want)
		}
	}
	nilMaps := &Components{Runner: "r"}
	want, _ := json.Marshal(nilMaps)
	if _, got := nilMaps.KeyAndEncodeWith(nilMaps.EncodeBeforeDeps(0)); !bytes.Equal(got, want) {
		t.Errorf("nil maps:\n got %s\nwant %s", got, want)
	}
}

// TestKeyAndEncodeWithWritesInPlace: the upstream keys are written over
// the end of the encoding taken before them, in its spare capacity, not
// into a copy of it: the encoding shares before's array, and the fold
// allocates only the key and the sorted upstream names.
func TestKeyAndEncodeWithWritesInPlace(t *testing.T) {
	c := &Components{Runner: "vx-key/1", Global: map[string]string{}, Definition: map[string]string{"command": "tsc"},
		Env: map[string]string{}, Files: map[string]string{"src/a.js": "0123456789abcdef0123456789abcdef", "package.json": "fedcba9876543210fedcba9876543210"}}
	before := c.EncodeBeforeDeps(1)
	if room := cap(before) - len(before); room != 2+64 {
		t.Errorf("the encoding before the upstream keys leaves %d bytes spare, want room for one key (66)", room)
	}
	c.Deps = map[string]string{"core#build": "00112233445566778899aabbccddeeff"}
	wantKey, wantEnc := c.KeyAndEncode()
	fresh := make([]byte, len(before), cap(before))
	copy(fresh, before)
	key, enc := c.KeyAndEncodeWith(fresh)
	if key != wantKey || !bytes.Equal(enc, wantEnc) {
		t.Fatalf("KeyAndEncodeWith = %s %s, want %s %s", key, enc, wantKey, wantEnc)
	}
	if &enc[0] != &fresh[0] {
		t.Errorf("the encoding is a copy, not written in before's array")
	}
	allocs := testing.AllocsPerRun(50, func() {
		copy(fresh[:cap(fresh)], before)
		c.KeyAndEncodeWith(fresh[:len(before)])
	})
	if allocs > 2 {
		t.Errorf("KeyAndEncodeWith made %.0f allocations, want the key and the names' order only (2)", allocs)
	}
}
