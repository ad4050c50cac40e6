package plugins

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/plugin"
)

// TestStoreCutAtALineIsRefused: a stored answer cut short at the end of
// one of its lines (a torn write, a hand edit) is no answer, never one
// with fewer tasks: a warm load would trust the tasks left and lose the
// others without asking the plugin.
func TestStoreCutAtALineIsRefused(t *testing.T) {
	root := t.TempDir()
	cmd := "echo ref"
	d := &plugin.Describe{Protocol: 1, Name: "reference", Version: "1.0.0", Stages: []string{"tasks"}, Globs: []string{"**/vx-ref.json"}}
	files := []fileRec{
		{Path: "a/vx-ref.json", Hash: "ab", Stamp: stamp{1, 2, 3, 4, 5}},
		{Path: "b/vx-ref.json", Hash: "cd", Stamp: stamp{1, 2, 3, 6, 5}},
	}
	tasks := []plugin.Task{
		{Project: "a", Name: "ref", File: "a/vx-ref.json", Command: &cmd},
		{Project: "b", Name: "ref", File: "b/vx-ref.json", Command: &cmd},
	}
	s := &stored{Spec: "./p.mjs", Identity: "id", DescribeKey: "dk", Describe: d, TasksKey: "tk", Tasks: tasks, Files: files, At: time.Unix(100, 0).UTC()}
	if err := s.save(root, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(storePath(root, "./p.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Every cut at a line's end short of the whole file.
	for i := 0; i < len(b)-1; i++ {
		if b[i] != '\n' {
			continue
		}
		if err := os.WriteFile(storePath(root, "./p.mjs"), b[:i+1], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := loadStored(root, "./p.mjs"); got != nil {
			t.Errorf("cut after %q: read back with %d files and %d tasks", bytes.TrimSpace(b[:i+1][bytes.LastIndexByte(b[:i], '\n')+1:]), len(got.Files), len(got.Tasks))
		}
	}
}

// TestStoreWithAByteChangedIsRefused: a stored answer with any one byte
// changed (its seal, its header, a file line or a task line) is no
// answer: a warm load takes a sealed store without checking its tasks.
func TestStoreWithAByteChangedIsRefused(t *testing.T) {
	root := t.TempDir()
	cmd := "echo ref"
	d := &plugin.Describe{Protocol: 1, Name: "reference", Version: "1.0.0", Stages: []string{"tasks"}, Globs: []string{"**/vx-ref.json"}}
	files := []fileRec{{Path: "a/vx-ref.json", Hash: "ab", Stamp: stamp{1, 2, 3, 4, 5}}}
	tasks := []plugin.Task{{Project: "a", Name: "ref", File: "a/vx-ref.json", Command: &cmd}}
	s := &stored{Spec: "./p.mjs", Identity: "id", DescribeKey: "dk", Describe: d, TasksKey: "tk", Tasks: tasks, Files: files, At: time.Unix(100, 0).UTC()}
	if err := s.save(root, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(storePath(root, "./p.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if loadStored(root, "./p.mjs") == nil {
		t.Fatal("the store as saved is not read back")
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		if err := os.WriteFile(storePath(root, "./p.mjs"), c, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := loadStored(root, "./p.mjs"); got != nil {
			t.Fatalf("byte %d (%q) changed: read back with %d tasks", i, b[i], len(got.Tasks))
		}
	}
}
