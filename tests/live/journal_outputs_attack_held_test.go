//go:build !windows

package live_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// markedOutputs brings root to a state where vxd is up and a no-op run
// took all three builds' outputs from the journal.
func markedOutputs(t *testing.T, root string) {
	t.Helper()
	outputsRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	outputsRun(t, root)
	if _, proven, _ := outputsRun(t, root); proven != 3 {
		t.Fatalf("a no-op run with the journal: %d outputs proven, want 3", proven)
	}
}

// TestJournalOutputsAfterFilteredRun: an output edited (size and mtime
// kept) before a run filtered to another project, which saves a token
// newer than the edit and verifies none of b's outputs, is restored by
// the next whole run: the filtered run's mark must not vouch for b.
func TestJournalOutputsAfterFilteredRun(t *testing.T) {
	root := journalWorkspace(t)
	markedOutputs(t, root)
	sameSizeEdit(t, filepath.Join(root, "packages/b/dist/out.txt"))
	for i := 0; i < 2; i++ { // the second may repeat the first
		if s, _, _ := debugRun(t, root, nil, "--filter", "a"); executed(s) != "" {
			t.Fatalf("the filtered run executed %q", executed(s))
		}
	}
	s, _, _ := outputsRun(t, root)
	wantBuilt(t, root, "b", "after an edit and two runs filtered to a")
	if executed(s) != "" {
		t.Fatalf("executed %q, want hits", executed(s))
	}
}

// TestJournalOutputsChmodAndRenameOver: an output whose mode alone
// changed, and one replaced by a rename of other bytes of its size over
// it (mtime put back), are not taken from the journal as stamped.
func TestJournalOutputsChmodAndRenameOver(t *testing.T) {
	root := journalWorkspace(t)
	markedOutputs(t, root)
	a := filepath.Join(root, "packages/a/dist/out.txt")
	c := filepath.Join(root, "packages/c/dist/out.txt")
	before, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(a, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(c)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "scratch", "other")
	harness.WriteFile(t, other, strings.Repeat("z", int(st.Size())))
	if err := os.Chtimes(other, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, c); err != nil {
		t.Fatal(err)
	}
	if s, proven, _ := outputsRun(t, root); executed(s) != "" || proven != 1 {
		t.Fatalf("executed %q, %d outputs proven; want hits, b's alone proven", executed(s), proven)
	}
	wantBuilt(t, root, "c", "after a rename over it")
	if got, _ := os.Stat(a); got.Mode() != before.Mode() {
		t.Fatalf("a's output left with mode %v, want %v as restored", got.Mode(), before.Mode())
	}
}

// TestJournalOutputsInNodeModules: an output under node_modules, which
// vxd's journal does not watch, is stat'ed every run: an edit there (size
// and mtime kept) is restored by the next run with vxd up.
func TestJournalOutputsInNodeModules(t *testing.T) {
	root := journalWorkspace(t)
	harness.WriteFile(t, filepath.Join(root, "packages/a/package.json"), `{"name": "a", "scripts": {"build": `+
		`"mkdir -p node_modules/.cache && find src -type f | sort | xargs cat > node_modules/.cache/out.txt"}}`)
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {"build": {"dependsOn": ["^build"], `+
		`"inputs": ["src/**"], "outputs": ["dist/**", "node_modules/.cache/**"]}}}`)
	outputsRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	outputsRun(t, root)
	if _, proven, statted := outputsRun(t, root); proven != 2 || statted != 1 {
		t.Fatalf("a no-op run with the journal: %d outputs proven, %d stat'ed; want b's and c's proven, a's (under node_modules) stat'ed", proven, statted)
	}
	out := filepath.Join(root, "packages/a/node_modules/.cache/out.txt")
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sameSizeEdit(t, out)
	if s, _, _ := outputsRun(t, root); executed(s) != "" {
		t.Fatalf("after an edit under node_modules: executed %q, want hits", executed(s))
	}
	if got, _ := os.ReadFile(out); string(got) != string(want) {
		t.Fatalf("an output under node_modules left stale: %q, want %q", got, want)
	}
}
