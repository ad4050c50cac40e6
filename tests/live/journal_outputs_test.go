//go:build !windows

package live_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// outputsRun is journalRun answering too how many of the hits' outputs
// the run took from the journal (proven) and how many it stat'ed.
func outputsRun(t *testing.T, root string) (s *wire.RunSummary, proven, statted int) {
	t.Helper()
	s, _, r := debugRun(t, root, []string{"VX_TEST_JOURNAL_RUN=" + strings.Repeat("o", int(journalRuns.Add(1)))})
	found := false
	for _, line := range strings.Split(r.Stderr, "\n") {
		var l struct {
			Message         string
			Proven, Statted int
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "hits' outputs" {
			proven, statted, found = l.Proven, l.Statted, true
		}
	}
	if !found {
		t.Fatalf("the run logged no hits' outputs line\n%s", r)
	}
	return s, proven, statted
}

// wantBuilt fails unless rel is a regular file holding what its package's
// build writes (its src files, in order).
func wantBuilt(t *testing.T, root, pkg, when string) {
	t.Helper()
	p := filepath.Join(root, "packages", pkg, "dist/out.txt")
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		t.Fatalf("%s: %s is not a regular file (%v)", when, p, err)
	}
	var want strings.Builder
	for _, f := range []string{"f0.js", "f1.js", "f2.js"} {
		b, err := os.ReadFile(filepath.Join(root, "packages", pkg, "src", f))
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
	}
	if got, _ := os.ReadFile(p); string(got) != want.String() {
		t.Fatalf("%s: the run left %s stale: %q, want %q", when, p, got, want.String())
	}
}

// sameSizeEdit rewrites p in place with other bytes of its size and puts
// its mtime back: only the ctime (and the journal) tell.
func sameSizeEdit(t *testing.T, p string) {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Repeat("x", int(st.Size()))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestJournalVouchesForOutputs: with vxd up, a fully cached run takes its
// hits' outputs as the journal proves them, without an lstat, once a run
// with vxd found them as stamped; an output edited (same size and mtime),
// removed, or replaced by a symbolic or a hard link to other bytes between
// two such runs is restored by the next, not taken as it is; so is one
// edited before a run that saved a later token but marked nothing.
func TestJournalVouchesForOutputs(t *testing.T) {
	root := journalWorkspace(t)
	if s, _, _ := outputsRun(t, root); executed(s) != "a#build b#build c#build" {
		t.Fatalf("first run executed %q", executed(s))
	}
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	if _, proven, statted := outputsRun(t, root); proven != 0 || statted != 3 {
		t.Fatalf("the first run with vxd (no token saved): %d outputs proven, %d stat'ed; want 0 and 3", proven, statted)
	}
	if s, proven, statted := outputsRun(t, root); executed(s) != "" || proven != 3 || statted != 0 {
		t.Fatalf("a no-op run with the journal executed %q, %d outputs proven, %d stat'ed; want none, 3 and 0", executed(s), proven, statted)
	}
	out := filepath.Join(root, "packages/b/dist/out.txt")
	other := func(name string) string {
		// Other bytes of out.txt's size, outside every task's inputs.
		p := filepath.Join(root, "scratch", name)
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, p, strings.Repeat("y", int(st.Size())))
		return p
	}
	steps := []struct {
		what   string
		change func()
		proven int // a's and c's, unless the mark is older than the token
	}{
		{"an edit keeping size and mtime", func() { sameSizeEdit(t, out) }, 2},
		{"a removed output", func() { mustRemove(t, out) }, 2},
		// The dry run saves the token after the edit, and marks nothing:
		// the next run's answer no longer holds the edit.
		{"an edit, then a dry run", func() {
			sameSizeEdit(t, out)
			if r := run(t, root, vxBin, "run", "build", "--dry"); r.Code != 0 {
				t.Fatalf("vx run build --dry\n%s", r)
			}
		}, 0},
		{"an output replaced by a symbolic link", func() {
			p := other("symlinked")
			mustRemove(t, out)
			if err := os.Symlink(p, out); err != nil {
				t.Fatal(err)
			}
		}, 2},
		{"an output replaced by a hard link", func() {
			p := other("linked")
			mustRemove(t, out)
			if err := os.Link(p, out); err != nil {
				t.Fatal(err)
			}
		}, 2},
	}
	for _, st := range steps {
		st.change()
		s, proven, _ := outputsRun(t, root)
		wantBuilt(t, root, "b", "after "+st.what)
		if executed(s) != "" || proven != st.proven {
			t.Fatalf("after %s: executed %q, %d outputs proven; want a hit restoring b's, %d proven", st.what, executed(s), proven, st.proven)
		}
		// The restore is a change the next run stats (the restoring
		// run's rewrite of the stamps kept a's and c's marks); the one
		// after takes all three from the journal again.
		if _, proven, statted := outputsRun(t, root); proven != 2 || statted != 1 {
			t.Fatalf("the run after %s was restored: %d outputs proven, %d stat'ed; want 2 and 1", st.what, proven, statted)
		}
		if _, proven, statted := outputsRun(t, root); proven != 3 || statted != 0 {
			t.Fatalf("after %s was restored: %d outputs proven, %d stat'ed; want 3 and 0", st.what, proven, statted)
		}
	}
}

// TestJournalStatsLinkedOutputs: an output with a second link when it was
// stamped (here made by the task) is never taken from the journal, which
// does not see a write through the other link: a same-size edit through
// that link, its mtime put back, is restored by the next run.
func TestJournalStatsLinkedOutputs(t *testing.T) {
	root := journalWorkspace(t)
	harness.WriteFile(t, filepath.Join(root, "packages/a/package.json"), `{"name": "a", "scripts": {"build": `+
		`"mkdir -p dist ../../scratch && find src -type f | sort | xargs cat > dist/out.txt && ln -f dist/out.txt ../../scratch/a-peer"}}`)
	outputsRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	outputsRun(t, root)
	if _, proven, statted := outputsRun(t, root); proven != 2 || statted != 1 {
		t.Fatalf("a no-op run with the journal: %d outputs proven, %d stat'ed; want b's and c's proven, a's linked one stat'ed", proven, statted)
	}
	sameSizeEdit(t, filepath.Join(root, "scratch/a-peer"))
	if s, _, _ := outputsRun(t, root); executed(s) != "" {
		t.Fatalf("after an edit through the other link: executed %q, want a hit", executed(s))
	}
	wantBuilt(t, root, "a", "after an edit through the other link")
}

// TestJournalOutputsWithoutVXD: an output edited while vxd is down (its
// mtime put back) is restored by the next run with vxd, whose journal
// began a new epoch: no mark of the last epoch vouches for it.
func TestJournalOutputsWithoutVXD(t *testing.T) {
	root := journalWorkspace(t)
	outputsRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	outputsRun(t, root)
	if _, proven, _ := outputsRun(t, root); proven != 3 {
		t.Fatalf("a no-op run with the journal: %d outputs proven, want 3", proven)
	}
	stopDaemon(t, root)
	sameSizeEdit(t, filepath.Join(root, "packages/c/dist/out.txt"))
	if _, proven, _ := outputsRun(t, root); proven != 0 {
		t.Fatalf("a run without vxd took %d outputs unstatted", proven)
	}
	wantBuilt(t, root, "c", "after an edit, a run without vxd")
	sameSizeEdit(t, filepath.Join(root, "packages/c/dist/out.txt"))
	d = startDaemon(t, root)
	waitJournal(t, d)
	if _, proven, _ := outputsRun(t, root); proven != 0 {
		t.Fatalf("the first run of a new epoch took %d outputs unstatted", proven)
	}
	wantBuilt(t, root, "c", "after an edit while vxd was down")
}

// TestJournalStatsOutputsBehindLinks: an output reached through a
// symbolic link — a project linked from outside the workspace, an output
// directory linked to another inside its project — is written where no
// watch reports it under the output's path: each is stat'ed every run,
// and an edit where the file lives (size and mtime kept) is restored.
func TestJournalStatsOutputsBehindLinks(t *testing.T) {
	root, outside := linkedWorkspace(t)
	writeExt(t, outside, "one")
	if err := os.Symlink(filepath.Join(outside, "ext"), filepath.Join(root, "packages/ext")); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(root, "packages/b/package.json"), `{"name": "b", "scripts": {"build": `+
		`"mkdir -p build && ln -sfn build dist && echo b > build/out.txt"}}`)
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {"build": {"inputs": ["src/**"], "outputs": ["dist/out.txt"]}}}`)
	outputsRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	outputsRun(t, root)
	s, _, statted := outputsRun(t, root)
	if executed(s) != "" || statted < 2 {
		t.Fatalf("a no-op run with the journal: executed %q, %d outputs stat'ed; want ext's and b's dist/out.txt among them", executed(s), statted)
	}
	sameSizeEdit(t, filepath.Join(outside, "ext/dist/out.txt"))
	sameSizeEdit(t, filepath.Join(root, "packages/b/build/out.txt"))
	outputsRun(t, root)
	if b, _ := os.ReadFile(filepath.Join(outside, "ext/dist/out.txt")); string(b) != "ext one\n" {
		t.Errorf("ext/dist/out.txt = %q: want it restored", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "packages/b/dist/out.txt")); string(b) != "b\n" {
		t.Errorf("packages/b/dist/out.txt = %q: want it restored", b)
	}
}
