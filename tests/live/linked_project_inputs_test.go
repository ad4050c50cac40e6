//go:build !windows

package live_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestLinkedProjectInputsAreHashed: a project whose directory is a
// symbolic link to a directory outside the workspace has its inputs
// hashed through the link (git's listing holds only the link), so an edit
// of one runs its task again, without vxd and with vxd up, whose journal
// does not watch outside the workspace; an unchanged input stays a hit.
func TestLinkedProjectInputsAreHashed(t *testing.T) {
	root, outside := linkedWorkspace(t)
	harness.WriteFile(t, filepath.Join(outside, "ext/package.json"), `{"name": "ext", "scripts": {"build": "mkdir -p dist && cat src/f.js > dist/out.txt"}}`)
	src := filepath.Join(outside, "ext/src/f.js")
	harness.WriteFile(t, src, "export const ext = 1;\n")
	if err := os.Symlink(filepath.Join(outside, "ext"), filepath.Join(root, "packages/ext")); err != nil {
		t.Fatal(err)
	}
	debugRun(t, root, nil)
	settle()
	if s, _, _ := debugRun(t, root, nil); executed(s) != "" {
		t.Fatalf("a no-op run executed %q", executed(s))
	}
	harness.WriteFile(t, src, "export const ext = 2;\n")
	if s, _, _ := debugRun(t, root, nil); executed(s) != "ext#build" {
		t.Fatalf("after an edit of the linked project's input: executed %q, want ext#build", executed(s))
	}

	settle()
	waitJournal(t, startDaemon(t, root))
	for i := 0; i < 3; i++ {
		debugRun(t, root, []string{"VX_TEST_ROUND=" + string(rune('a'+i))})
	}
	harness.WriteFile(t, src, "export const ext = 3;\n")
	s, lines, _ := debugRun(t, root, []string{"VX_TEST_ROUND=z"})
	if executed(s) != "ext#build" {
		t.Fatalf("with vxd up (%s), after an edit of the linked project's input: executed %q, want ext#build", journalHow(lines), executed(s))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "ext/dist/out.txt")); string(b) != "export const ext = 3;\n" {
		t.Fatalf("ext/dist/out.txt = %q", b)
	}
}
