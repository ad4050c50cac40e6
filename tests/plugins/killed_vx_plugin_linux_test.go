package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// TestAPluginEndsWithAKilledVX: a plugin request under way when vx is
// killed (kill -9: no deferred kill runs) does not outlive vx; it was
// left running until it ended by itself (here a plugin that never
// answers: ten minutes).
func TestAPluginEndsWithAKilledVX(t *testing.T) {
	reach.Tool(t, "node", "the plugin is a Node script")
	root := harness.TempRoot(t)
	for rel, text := range map[string]string{
		"package.json":      `{"name":"root","private":true}`,
		"vx.workspace.json": `{"plugins":["./tools/slow.cjs"]}`,
		"tools/slow.cjs":    `require("fs").writeFileSync(require("path").join(__dirname, "..", "plugin.pid"), String(process.pid)); setTimeout(() => {}, 600000);`,
	} {
		harness.WriteFile(t, filepath.Join(root, rel), text)
	}
	cmd := exec.Command(vxBin, "info")
	cmd.Dir, cmd.Env = root, harness.Env()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := 0
	for bound := time.Now().Add(time.Minute); pid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(root, "plugin.pid")); err == nil && strings.TrimSpace(string(b)) != "" {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(bound) {
			t.Fatal("the plugin did not start")
		}
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The bound only keeps a broken build from hanging the test.
	for bound := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(b), ") Z ") {
			return // gone, or dead and its parent's to reap
		}
		if time.Now().After(bound) {
			t.Fatalf("the plugin %d outlived the vx killed while asking it", pid)
		}
	}
}
