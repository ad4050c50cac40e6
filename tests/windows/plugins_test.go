//go:build !windows

package windows_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestPluginLeavesNoProcess: a plugin (here a batch file) that starts a
// process and exits without waiting for it leaves nothing running once
// vx.exe has its answer: the plugin's Job Object ends what it started.
// Before plugins were held in one, the spinning cmd.exe outlived vx.exe.
func TestPluginLeavesNoProcess(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	marker := "plugmark" + strconv.Itoa(os.Getpid())
	harness.WriteFile(t, filepath.Join(ws, "package.json"), `{ "name": "root", "private": true, "workspaces": ["packages/*"] }`)
	harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), `{ "projects": ["packages/*"], "plugins": ["./tools/leave.cmd"] }`)
	harness.WriteFile(t, filepath.Join(ws, "packages/a/package.json"), `{ "name": "a", "version": "1.0.0" }`)
	harness.WriteFile(t, filepath.Join(ws, "tools/leave.cmd"),
		"@start /b cmd /d /c \"for /L %%i in (1,1,999999999) do @echo "+marker+"%%i> tick.txt\"\r\n"+
			"@ping -n 2 127.0.0.1 > nul\r\n@echo {}\r\n")
	defer killMarked(marker)

	_, stderr, _ := wineVX(t, ws, "show", "--format", "json")
	if _, err := os.Stat(filepath.Join(ws, "tick.txt")); err != nil {
		t.Fatalf("the plugin's process never ran (no tick.txt); vx.exe said:\n%s", stderr)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(markedPids(marker, "")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after vx.exe had the plugin's answer, what the plugin started still runs: %v\n%s", markedPids(marker, ""), stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
