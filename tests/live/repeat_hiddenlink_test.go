//go:build !windows

package live_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// taskIDs lists a run's tasks, executed or not, sorted.
func taskIDs(s *wire.RunSummary) []string {
	var out []string
	for _, row := range s.Tasks {
		out = append(out, row.TaskID)
	}
	slices.Sort(out)
	return out
}

// wantLikeAFreshRun runs with env and wants the run's tasks to be those
// of a run that cannot repeat anything (an environment no run had),
// which loads the workspace as it is.
func wantLikeAFreshRun(t *testing.T, root, what string, env []string) {
	t.Helper()
	s, why := repeatRun(t, root, env)
	fresh, _ := repeatRun(t, root, []string{"VX_TEST_FRESH=" + what})
	if fresh.RepeatOf != "" {
		t.Fatalf("a run in a new environment repeated run %s", fresh.RepeatOf)
	}
	if got, want := taskIDs(s), taskIDs(fresh); !slices.Equal(got, want) {
		t.Fatalf("after %s the run had tasks %q (repeat of %q: %s); the workspace has %q", what, got, s.RepeatOf, why, want)
	}
}

// TestRepeatSeesALinkNamedLikeGit: a project glob (packages/*) matches
// an entry named .git, which vxd's journal never reports (it covers no
// path with a .git segment): a symbolic link made there to a directory
// outside, with no project yet, and then a project made behind it. A run
// that may take the link check as done from the memo (another
// environment, nothing changed since the memo's token by the journal's
// account) leaves a memo over that link; the run after must still see
// the workspace as a run that loads it does.
func TestRepeatSeesALinkNamedLikeGit(t *testing.T) {
	root, outside := linkedWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	settleRepeat(t, root)

	later := filepath.Join(outside, "later")
	if err := os.MkdirAll(later, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(later, filepath.Join(root, "packages/.git")); err != nil {
		t.Fatal(err)
	}
	// Runs of another environment: not repeats of the memo, they may
	// leave one of their own.
	env := []string{"VX_TEST_OTHER=1"}
	settle()
	for i := 0; i < 3; i++ {
		if s, why := repeatRun(t, root, env); executed(s) != "" {
			t.Fatalf("a no-op run executed %q (%s)", executed(s), why)
		}
	}
	harness.WriteFile(t, filepath.Join(later, "package.json"), `{"name": "later", "scripts": {"build": "mkdir -p dist && echo later > dist/out.txt"}}`)
	wantLikeAFreshRun(t, root, "a project made behind a link named .git", env)
}

// TestRepeatSeesADirectoryNamedLikeGit: the same without a link: a
// directory packages/.git made after the memo, and a manifest in it.
func TestRepeatSeesADirectoryNamedLikeGit(t *testing.T) {
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	settleRepeat(t, root)
	harness.WriteFile(t, filepath.Join(root, "packages/.git/package.json"), `{"name": "hidden", "scripts": {"build": "echo hidden"}}`)
	wantLikeAFreshRun(t, root, "a project made in a directory named .git", nil)
}

// TestRepeatSeesAProjectMadeInANamedHiddenDirectory: a project glob that
// names a hidden directory (packages/.*/*, as trpc's pnpm-workspace.yaml
// names examples/.*/*) makes projects there; one made there after the
// memo, with vxd up, is in the next run, as in a run that loads the
// workspace.
func TestRepeatSeesAProjectMadeInANamedHiddenDirectory(t *testing.T) {
	root := journalWorkspace(t)
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*", "packages/.*/*"], "tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**"], "outputs": ["dist/**"]}}}`)
	harness.WriteFile(t, filepath.Join(root, "packages/.test/first/package.json"), `{"name": "first", "scripts": {"build": "echo first"}}`)
	s, _ := repeatRun(t, root, nil)
	if !slices.Contains(taskIDs(s), "first#build") {
		t.Fatalf("the run's tasks %q lack first#build, of packages/.test/first", taskIDs(s))
	}
	settle()
	waitJournal(t, startDaemon(t, root))
	settleRepeat(t, root)
	harness.WriteFile(t, filepath.Join(root, "packages/.test/later/package.json"), `{"name": "later", "scripts": {"build": "echo later"}}`)
	wantLikeAFreshRun(t, root, "a project made in a hidden directory a glob names", nil)
}
