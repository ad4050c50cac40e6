package plugins

import (
	"reflect"
	"testing"

	"github.com/vzn/vx/protocol/plugin"
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

// TestTaskRecordsRoundTrip: stored tasks read back as the plugin answered
// them, alike ones kept as one shape; a name the lines cannot hold keeps
// the whole list as it was; lines that do not parse or name a missing
// shape are no tasks at all.
func TestTaskRecordsRoundTrip(t *testing.T) {
	cmd, other, yes := "echo ref", "echo other", true
	ins, outs := []string{"**/*"}, []string{"ref/**"}
	tasks := []plugin.Task{
		{Project: "a", Name: "ref", File: "packages/a/vx-ref.json", Command: &cmd, Inputs: &ins, Outputs: &outs},
		{Project: "b", Name: "ref", File: "packages/b/vx-ref.json", Command: &cmd, Inputs: &ins, Outputs: &outs},
		{Project: "c", Name: "lint", File: "c/x y.json", Command: &other, Cache: &yes},
	}
	shapes, text, list := encodeTasks(tasks)
	if len(shapes) != 2 || list != nil {
		t.Fatalf("shapes %d, list %v", len(shapes), list)
	}
	got, ok := decodeTasks(shapes, text)
	if !ok || !reflect.DeepEqual(got, tasks) {
		t.Fatalf("round trip: %v %+v", ok, got)
	}
	odd := append(tasks[:1:1], plugin.Task{Project: "d", Name: "ref", File: "a\tb", Command: &cmd})
	if shapes, text, list := encodeTasks(odd); shapes != nil || text != "" || !reflect.DeepEqual(list, odd) {
		t.Fatalf("a tab in a file name: %v %q %v", shapes, text, list)
	}
	for _, bad := range []string{"a\tref\tf\t2\n", "a\tref\tf\t-1\n", "a\tref\tf\n", "a\tref\tf\t0", "a\tref\tf\tx\n"} {
		if _, ok := decodeTasks(shapes, bad); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}
