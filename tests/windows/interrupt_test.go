//go:build !windows

package windows_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestInterruptStopsRun: Ctrl+C (SIGINT to vx.exe's wine process, which
// wine delivers to it as a CTRL_C_EVENT) stops a run whose task (a nested
// cmd.exe loop) would not end by itself: vx.exe exits 130 reporting the
// task interrupted, and no process of the task is left (its Job Object
// ended them). Wine 8 cannot show the task receiving the CTRL_BREAK_EVENT
// vx aims at its process group first: GenerateConsoleCtrlEvent fails
// there (without a console "Invalid access", with wine's Unix console
// "Invalid handle"), so vx ends the job at once; a real Windows runner
// shows the event.
func TestInterruptStopsRun(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	marker := "intrmark" + strconv.Itoa(os.Getpid())
	harness.WriteFile(t, filepath.Join(ws, "package.json"), `{ "name": "root", "private": true, "workspaces": ["packages/*"] }`)
	harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), `{ "projects": ["packages/*"] }`)
	harness.WriteFile(t, filepath.Join(ws, "packages/a/package.json"),
		`{ "name": "a", "version": "1.0.0", "scripts": { "spin": "cmd /d /c for /L %i in (1,1,999999999) do @echo `+marker+`%i> tick.txt" } }`)
	defer killMarked(marker)

	cmd := wineDaemonCmd(t, ws, filepath.Join(windowsBinaries(t), "vx.exe"), "run", "a#spin", "--format", "json")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for len(markedPids(marker, "/s")) == 0 {
		select {
		case err := <-done:
			t.Fatalf("vx.exe ended (%v) before the task's nested cmd.exe ran:\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("vx.exe did not end within a minute of Ctrl+C:\n%s", out.String())
	}
	_, cache := keysOf(t, out.String())
	if code := cmd.ProcessState.ExitCode(); code != 130 || cache["a#spin"] != "miss/interrupted" {
		t.Errorf("vx.exe after Ctrl+C: exit %d, a#spin %q; want 130 and the task interrupted\n%s", code, cache["a#spin"], out.String())
	}
	harness.WaitFor(t, 30*time.Second, "the task's processes to end after vx.exe stopped the run", func() bool {
		return len(markedPids(marker, "")) == 0
	})
}
