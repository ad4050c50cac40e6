package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// writableCgroup is vx's own cgroup when a run could have one here; the
// test is skipped otherwise (not root, no delegated subtree: a host vx
// supports without cgroups, not a missing tool, so CI skips too).
func writableCgroup(t *testing.T) string {
	t.Helper()
	base := ownCgroup()
	probe := filepath.Join(base, "vx-probe-"+strconv.Itoa(os.Getpid()))
	if base == "" || os.Mkdir(probe, 0o755) != nil {
		t.Skipf("no writable cgroup v2 cgroup here (vx's own: %q): runs get no cgroup", base)
	}
	os.Remove(probe)
	return base
}

// TestStaleRunCgroupIsRemoved: a run cgroup left by a vx that is gone
// (its watchdog killed too) is removed by the next run that makes one,
// and what was left in it is killed; a live vx's is left alone.
func TestStaleRunCgroupIsRemoved(t *testing.T) {
	base := writableCgroup(t)
	// A pid that is no process: past pid_max.
	stale := filepath.Join(base, "vx-99999999-1")
	live := filepath.Join(base, "vx-"+strconv.Itoa(os.Getpid())+"-999")
	if err := os.Mkdir(live, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeCgroup(stale); removeCgroup(live) })
	left := startInStaleCgroup(t, stale)
	t.Cleanup(func() { left.Process.Kill() })

	c := newRunCgroup()
	if c == nil {
		t.Fatal("no run cgroup, where the probe could make one")
	}
	removeCgroup(c.dir)
	left.Wait()
	if ws, ok := left.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the process left in the stale cgroup: %v, want killed", left.ProcessState)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cgroup is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live vx's cgroup was removed: %v", err)
	}
}

// startInStaleCgroup makes the stale cgroup dir with a child cgroup and
// starts a sleeper in that child. Any vx starting meanwhile on this
// machine (another package's test) removes a stale cgroup as it should:
// made again then, up to a few times.
func startInStaleCgroup(t *testing.T, stale string) *exec.Cmd {
	t.Helper()
	var err error
	for range 10 {
		removeCgroup(stale)
		if err = os.MkdirAll(filepath.Join(stale, "1"), 0o755); err != nil {
			continue
		}
		var f *os.File
		if f, err = os.Open(filepath.Join(stale, "1")); err != nil {
			continue
		}
		left := exec.Command("sleep", "60")
		left.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
		err = left.Start()
		f.Close()
		if err == nil {
			return left
		}
	}
	t.Fatalf("starting a process in the stale cgroup %s: %v", stale, err)
	return nil
}
