//go:build !windows

package live_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

func TestStatusWatch(t *testing.T) {
	root := demo(t)
	startDaemon(t, root)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, vxdBin, "status", "--watch")
	cmd.Dir = root
	cmd.Env = baseEnv()
	var stdout, stderr harness.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr // pipes, no terminal
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	// The first drawing comes after the feed is connected.
	harness.WaitFor(t, 30*time.Second, "the first drawing of vxd status --watch", func() bool {
		return strings.Contains(stdout.String(), "live events")
	})

	sum := vxRun(t, root, "build", "--force")
	started := "run " + sum.RunID + " started"
	finished := "run " + sum.RunID + " " + sum.Status + " in "
	harness.WaitFor(t, 30*time.Second, "the run's started and finished lines in vxd status --watch", func() bool {
		out := stdout.String()
		return strings.Contains(out, started) && strings.Contains(out, finished)
	})
	out := stdout.String()
	if i := strings.LastIndex(out, "\x1b[2J"); i >= 0 {
		out = out[i:] // the last drawing
	}
	if !strings.Contains(out, "@demo/utils#build started") || !strings.Contains(out, "web#build passed") {
		t.Errorf("the last drawing does not show the tasks:\n%s", out)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("vxd status --watch after SIGINT: %v, want exit 0\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("vxd status --watch did not exit on SIGINT\nstderr:\n%s", stderr.String())
	}
}

func TestStatusWatchNoDaemon(t *testing.T) {
	root := demo(t)
	r := run(t, root, vxdBin, "status", "--watch")
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	msg := strings.TrimSpace(r.Stderr)
	if strings.Count(msg, "\n") != 0 || !strings.HasSuffix(msg, ".") || !strings.Contains(msg, "not running") || !strings.Contains(msg, root) {
		t.Errorf("want one sentence saying vxd is not running for %s, got:\n%s", root, r.Stderr)
	}
	if r.Stdout != "" {
		t.Errorf("stdout: %q, want nothing", r.Stdout)
	}
	// Status never starts a daemon.
	if _, err := os.Stat(filepath.Join(root, ".vx", "daemon", "vxd.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vxd status --watch left a discovery file (started a daemon?): %v", err)
	}
}
