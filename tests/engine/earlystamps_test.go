//go:build !windows

package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestEarlyStampsSeeRemovedOutput: vx run decodes the output stamps while
// the workspace loads (daemon/runner/early.go); an output removed or
// replaced since the last run is still seen and restored, and the stamps
// the restoring run saves are the ones the next run starts from.
func TestEarlyStampsSeeRemovedOutput(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	runJSON(t, ws, nil, 0, "build")
	out := filepath.Join(ws, "packages", "core", "dist", "index.js")
	orig, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	s, _ := runJSON(t, ws, nil, 0, "build")
	if row := s.row(t, "core#build"); row.Cache != "hit" {
		t.Fatalf("core#build with its output removed: cache %s, want a hit restoring it", row.Cache)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, orig) {
		t.Fatalf("the removed output was not restored: %q, %v; want %q", got, err, orig)
	}
	// Replaced by another file (a new inode) of other content.
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runJSON(t, ws, nil, 0, "build")
	if got, _ := os.ReadFile(out); !bytes.Equal(got, orig) {
		t.Errorf("the replaced output was kept: %q, want %q restored", got, orig)
	}
	s, _ = runJSON(t, ws, nil, 0, "build")
	if missed := misses(s); len(missed) > 0 {
		t.Errorf("a run after the restore missed %v", missed)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, orig) {
		t.Errorf("after the restore and another run: %q, want %q", got, orig)
	}
}
