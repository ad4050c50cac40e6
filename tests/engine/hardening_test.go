package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndOfFlags: vx run reads every argument after "--" as a task name,
// never a flag; runTasks and planTasks put the agent's task names there.
func TestEndOfFlags(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	r := vx(t, ws, nil, "run", "--dry=json", "--", "--force")
	if r.Code == 0 || !strings.Contains(r.Stderr, `--force`) || strings.Contains(r.Stderr, "unknown flag") {
		t.Fatalf("vx run -- --force: want a refusal of the task \"--force\"\n%s", r)
	}
	var p struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	}
	decodeOnly(t, vxOK(t, ws, nil, "run", "--dry=json", "--", "build"), &p)
	if len(p.Tasks) == 0 {
		t.Fatalf("vx run --dry=json -- build planned nothing")
	}
}

// TestOutputEditedInPlaceIsRestored: an output rewritten in place with the
// same size and its mtime put back (same inode) is not what vx left: the
// next hit restores it from the cache rather than keep the tampered file.
func TestOutputEditedInPlaceIsRestored(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	runJSON(t, ws, nil, 0, "build")
	out := filepath.Join(ws, "packages", "core", "dist", "index.js")
	orig, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // let the clock move past the stamp's ctime
	tampered := bytes.Repeat([]byte("X"), len(orig))
	f, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(tampered, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(out, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	s, _ := runJSON(t, ws, nil, 0, "build")
	if row := s.row(t, "core#build"); row.Cache != "hit" {
		t.Fatalf("core#build after the edit: cache %s, want a hit (its inputs did not move)", row.Cache)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, orig) {
		t.Errorf("the output edited in place (mtime put back) was kept: %q, want %q restored", got, orig)
	}
}
