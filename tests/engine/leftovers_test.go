//go:build !windows

package engine_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A vx run killed with -9 leaves its scratch store (--cache without
// local:w) and its sandbox temp dirs under .vx/; the next run removes them
// (their process is gone) instead of letting every crash add to .vx/.
func TestKilledRunLeftoversAreReaped(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "crash")
	writeFiles(t, ws, map[string]string{"vx.workspace.json": `{"projects": ["svc"],
		"tasks": {"quick": {"cache": true}, "slow": {"dependsOn": ["quick"], "cache": false, "sandbox": {"mode": "report"}}}}`})
	cmd := exec.Command(vxBin, "run", "slow", "--cache=local:r")
	cmd.Dir = ws
	cmd.Env = baseEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !exists(filepath.Join(ws, "slow.started")) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("svc#slow never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	leftovers := func() []string {
		a, _ := filepath.Glob(filepath.Join(ws, ".vx", "scratch-*"))
		b, _ := filepath.Glob(filepath.Join(ws, ".vx", "tmp", "*"))
		return append(a, b...)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killLeftIn(ws)
	left := leftovers()
	var scratch, tmp bool
	for _, d := range left {
		scratch = scratch || strings.Contains(d, "scratch-")
		tmp = tmp || strings.Contains(d, string(filepath.Separator)+"tmp"+string(filepath.Separator))
	}
	if !scratch || !tmp {
		t.Fatalf("the killed run left no scratch store and temp dir to reap (the test sets them up): %v", left)
	}
	runJSON(t, ws, nil, 0, "quick")
	if left := leftovers(); len(left) != 0 {
		t.Fatalf("the next run left the killed run's leftovers: %v", left)
	}
}
