//go:build !windows

package harness

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Alive and Cmdline see a running process; a killed one that nobody has
// reaped yet (a zombie) is not alive.
func TestAliveAndCmdline(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if !Alive(pid) {
		t.Fatalf("pid %d runs, Alive says no", pid)
	}
	if c := Cmdline(pid); !strings.HasPrefix(c, "sleep 30") {
		t.Errorf("Cmdline = %q, want sleep 30", c)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, 10*time.Second, "the killed process to be a zombie", func() bool { return !Alive(pid) })
	if Alive(-1) || Alive(0) {
		t.Error("Alive of no pid")
	}
}
