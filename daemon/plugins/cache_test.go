package plugins

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/plugin"
)

// TestFileRecordsRoundTrip: the stored file records read back as written;
// a path the line format cannot hold is left out, and text that does not
// parse is no record at all.
func TestFileRecordsRoundTrip(t *testing.T) {
	recs := []fileRec{
		{Path: "packages/a/vitest.config.ts", Hash: "ab12", Stamp: stamp{1, 2, 3, 4, 5}},
		{Path: "x y/é.json", Hash: "cd34", Stamp: stamp{-1, 0, 9, 1 << 40, 0o100644}},
		{Path: "z", Hash: "ef56", Stamp: stamp{math.MinInt64, math.MaxInt64, 1733500000123456789, -1733500000123456789, 0}, Sum: "s"},
	}
	got, ok := decodeFiles(encodeFiles(append(recs, fileRec{Path: "bad\tname", Hash: "ff"})))
	for i := range got {
		got[i].decodeStamp()
	}
	if !ok || !reflect.DeepEqual(got, recs) {
		t.Fatalf("round trip: %v %+v", ok, got)
	}
	digits := strings.Repeat("0", 80)
	for _, bad := range []string{"a\tb\n", "a\tb\t" + digits + "\n", "a\tb\t" + digits + "\ts", "a\tb\t" + digits[1:] + "\ts\n",
		"a\tb\t" + digits + "0\ts\n", "a\tb\t1\t2\t3\t4\t5\ts\n"} {
		if _, ok := decodeFiles(bad); ok {
			t.Errorf("%q decoded", bad)
		}
	}
	// A stamp is decoded when asked: one whose digits are not hex (only a
	// store sealed by hand has it) is no stamp, and vouches for nothing.
	for _, bad := range []string{digits[2:] + "0g", digits[2:] + "0A", "x" + digits[1:]} {
		got, ok := decodeFiles("a\tb\t" + bad + "\ts\n")
		if !ok || len(got) != 1 {
			t.Fatalf("%q: %v %v", bad, got, ok)
		}
		if got[0].decodeStamp(); got[0].Stamp != (stamp{}) || got[0].trusted(got[0].Stamp, time.Now().Add(time.Hour)) {
			t.Errorf("%q: stamp %v, or trusted", bad, got[0].Stamp)
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

// TestStoreRoundTrip: a stored answer reads back as saved, with files and
// tasks, without files, and without either; a file cut short or for
// another spec is none.
func TestStoreRoundTrip(t *testing.T) {
	root := t.TempDir()
	cmd := "echo ref"
	d := &plugin.Describe{Protocol: 1, Name: "reference", Version: "1.0.0", Stages: []string{"tasks"}, Globs: []string{"**/vx-ref.json"}}
	files := []fileRec{{Path: "a/vx-ref.json", Hash: "ab", Stamp: stamp{1, 2, 3, 4, 5}}}
	tasks := []plugin.Task{{Project: "a", Name: "ref", File: "a/vx-ref.json", Command: &cmd}}
	for i, c := range []struct {
		files []fileRec
		tasks []plugin.Task
	}{{files, tasks}, {nil, nil}, {files, nil}, {nil, tasks}} {
		spec := fmt.Sprintf("./p%d.mjs", i)
		s := &stored{Spec: spec, Identity: "id", DescribeKey: "dk", Describe: d, TasksKey: "tk", Tasks: c.tasks, Files: c.files, At: time.Unix(100, 0).UTC()}
		if err := s.save(root, nil); err != nil {
			t.Fatal(err)
		}
		got := loadStored(root, spec)
		for i := range files {
			if got != nil && i < len(got.Files) {
				got.Files[i].decodeStamp()
			}
		}
		if got == nil || got.TasksKey != "tk" || len(got.Files) != len(c.files) || len(got.Tasks) != len(c.tasks) ||
			(len(c.files) > 0 && !reflect.DeepEqual(got.Files, c.files)) || (len(c.tasks) > 0 && !reflect.DeepEqual(got.Tasks, c.tasks)) {
			t.Fatalf("case %d: %+v", i, got)
		}
		if loadStored(root, "./other.mjs") != nil {
			t.Fatalf("case %d: another spec's answer was read", i)
		}
	}
	b, err := os.ReadFile(storePath(root, "./p0.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(storePath(root, "./p0.mjs"), b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if s := loadStored(root, "./p0.mjs"); s != nil && len(s.Tasks) == 1 {
		t.Fatalf("a store cut in half read back whole: %+v", s)
	}
}
