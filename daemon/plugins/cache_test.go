package plugins

import (
	"reflect"
	"testing"
)

// TestFileRecordsRoundTrip: the stored file records read back as written;
// a path the line format cannot hold is left out, and text that does not
// parse is no record at all.
func TestFileRecordsRoundTrip(t *testing.T) {
	recs := []fileRec{
		{Path: "packages/a/vitest.config.ts", Hash: "ab12", Stamp: stamp{1, 2, 3, 4, 5}},
		{Path: "x y/é.json", Hash: "cd34", Stamp: stamp{-1, 0, 9, 1 << 40, 0o100644}},
	}
	got, ok := decodeFiles(encodeFiles(append(recs, fileRec{Path: "bad\tname", Hash: "ff"})))
	if !ok || !reflect.DeepEqual(got, recs) {
		t.Fatalf("round trip: %v %+v", ok, got)
	}
	for _, bad := range []string{"a\tb\n", "a\tb\t1\t2\t3\t4\tx\n", "a\tb\t1\t2\t3\t4\t5"} {
		if _, ok := decodeFiles(bad); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}

// TestMatch: globs select workspace files as doublestar does, never under
// node_modules, .git or .vx; "**/NAME" matches at any depth, the root
// included.
func TestMatch(t *testing.T) {
	files := []string{"vitest.config.ts", "a/vitest.config.mts", "a/b/vitest.config.js", "a/node_modules/x/vitest.config.ts",
		".vx/vitest.config.ts", "a/vitest.config.tsx", "a/eslint.config.js", "src/x.ts"}
	got := Match([]string{"**/vitest.config.{ts,mts,js}", "a/eslint.*"}, files)
	want := []string{"vitest.config.ts", "a/vitest.config.mts", "a/b/vitest.config.js", "a/eslint.config.js"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Match = %v, want %v", got, want)
	}
}
