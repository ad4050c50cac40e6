//go:build !windows

package live_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// startRun starts `vx run build ARGS` in its own process group, with an
// environment no run had before (so it goes through the journal).
func startRun(t *testing.T, root string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(vxBin, append([]string{"run", "build"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(baseEnv(), fmt.Sprintf("VX_TEST_JOURNAL_RUN=%d", journalRuns.Add(1)))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// builtFromSources reports whether each package's dist/out.txt is its
// src files' contents, in name order, as its build writes them.
func builtFromSources(t *testing.T, root string) {
	t.Helper()
	for _, pkg := range []string{"a", "b", "c"} {
		want := ""
		for i := 0; i < 3; i++ {
			b, err := os.ReadFile(filepath.Join(root, "packages", pkg, "src", fmt.Sprintf("f%d.js", i)))
			if err != nil {
				t.Fatal(err)
			}
			want += string(b)
		}
		got, err := os.ReadFile(filepath.Join(root, "packages", pkg, "dist", "out.txt"))
		if err != nil || string(got) != want {
			t.Fatalf("packages/%s/dist/out.txt = %q (%v), its sources say %q", pkg, got, err, want)
		}
	}
}

// TestJournalKilledAndConcurrentRunsNeverProveAStaleFile: with vxd up,
// edits each followed by two runs at once (all packages, and b alone),
// one of them killed with -9 at a different moment each time (before,
// during or after it saves the journal's state), never leave a state that
// proves an edited file unchanged: the next run builds every package from
// what its files say, and the one after it executes nothing.
func TestJournalKilledAndConcurrentRunsNeverProveAStaleFile(t *testing.T) {
	root := journalWorkspace(t)
	journalRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	journalRun(t, root)
	wantJournal(t, func() string { _, how := journalRun(t, root); return how }())
	pkgs := []string{"a", "b", "c"}
	for i := 0; i < 12; i++ {
		f := filepath.Join(root, "packages", pkgs[i%3], "src", fmt.Sprintf("f%d.js", i%3))
		harness.WriteFile(t, f, fmt.Sprintf("edit %d\n", i))
		all, alone := startRun(t, root), startRun(t, root, "--filter", "b")
		victim, other := all, alone
		if i%2 == 1 {
			victim, other = alone, all
		}
		time.Sleep(time.Duration(i*40) * time.Millisecond)
		_ = syscall.Kill(-victim.Process.Pid, syscall.SIGKILL)
		_ = victim.Wait()
		_ = other.Wait()
	}
	last, how := journalRun(t, root)
	builtFromSources(t, root)
	if s, how2 := journalRun(t, root); executed(s) != "" {
		t.Fatalf("a no-op run after the killed ones executed %q (%s; the run before it went %s, executed %q)", executed(s), how2, how, executed(last))
	}
}
