//go:build !windows

package windows_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestKilledRunLeavesNoTask: vx.exe killed (kill -9 of its wine process)
// while a task runs leaves no process of the task, not even one the
// task's shell started (a nested cmd.exe): the task's Job Object, which
// vx held, kills them all when its handle closes. Without the job the
// nested cmd.exe outlives vx (measured with holdTree disabled: the
// watchdog ends the task's first process only).
func TestKilledRunLeavesNoTask(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	marker := "spinmark" + strconv.Itoa(os.Getpid())
	harness.WriteFile(t, filepath.Join(ws, "package.json"), `{ "name": "root", "private": true, "workspaces": ["packages/*"] }`)
	harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), `{ "projects": ["packages/*"] }`)
	harness.WriteFile(t, filepath.Join(ws, "packages/a/package.json"),
		`{ "name": "a", "version": "1.0.0", "scripts": { "spin": "cmd /d /c for /L %i in (1,1,999999999) do @echo `+marker+`%i> tick.txt" } }`)
	defer killMarked(marker)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, wineBin, filepath.Join(windowsBinaries(t), "vx.exe"), "run", "a#spin")
	cmd.Dir = ws
	cmd.Env = wineEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A task process left behind holds the output pipe: Wait must not
	// wait for it.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// wine runs vx.exe in the process it started; the nested cmd.exe's
	// command line names the marker without the outer one's "/s".
	for len(markedPids(marker, "/s")) == 0 {
		select {
		case err := <-done:
			t.Fatalf("vx.exe ended (%v) before the task's nested cmd.exe ran:\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	deadline := time.Now().Add(30 * time.Second)
	for len(markedPids(marker, "")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after vx.exe was killed, processes of its task still run: %v\n%s", markedPids(marker, ""), out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// markedPids lists the processes (wine's, seen from Linux) whose command
// line holds marker and not except ("" excepts nothing).
func markedPids(marker, except string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		line := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		if err != nil || !strings.Contains(line, marker) || (except != "" && strings.Contains(line, except)) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

// killMarked kills what a failed test left running.
func killMarked(marker string) {
	for _, pid := range markedPids(marker, "") {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
