//go:build unix

package workspace_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHungPluginLeavesNoProcess: a plugin that starts a child and hangs
// is killed at its timeout with its child; nothing it started outlives
// the load.
func TestHungPluginLeavesNoProcess(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":[{"plugin":"./tools/bad.cjs","timeout":"1s"}]}`,
		"tools/bad.cjs": badPlugin(`const c = require("child_process").spawn("sleep", ["300"], {stdio: "ignore"});
require("fs").writeFileSync("child.pid", String(c.pid));
setInterval(() => {}, 1000);`),
	})
	ps := mustLoad(t, root).Plugins()
	if len(ps) != 1 || !strings.Contains(ps[0].Error, "no answer within 1s") {
		t.Fatalf("plugins: %+v", ps)
	}
	b, err := os.ReadFile(filepath.Join(root, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	// The child was killed with the group; once its parent is gone it is
	// reaped by init, so it is either absent or a zombie about to be.
	childGone(t, pid)
}

// TestPluginChildHoldingStdoutIsKilled: a plugin that answers and exits
// but leaves a child holding its stdout open has its answer taken, and
// the child does not outlive the request.
func TestPluginChildHoldingStdoutIsKilled(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/bad.cjs"]}`,
		"tools/bad.cjs": badPlugin(`const c = require("child_process").spawn("sleep", ["300"], {stdio: ["ignore", "inherit", "inherit"]});
require("fs").writeFileSync("child.pid", String(c.pid));
c.unref();
out({protocol:1,tasks:[{project:"a",name:"ref",file:"packages/a/vx-ref.json",command:"echo ref"}]});`),
	})
	ps := mustLoad(t, root).Plugins()
	if len(ps) != 1 || ps[0].Error != "" || ps[0].Tasks != 1 {
		t.Fatalf("plugins: %+v", ps)
	}
	b, err := os.ReadFile(filepath.Join(root, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	childGone(t, pid)
}

// childGone fails unless the process pid is gone or a zombie: a SIGKILL
// is delivered a moment after it is sent (a loaded machine shows it still
// running), so it is given until a deadline to take effect.
func childGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if strings.Contains(string(stat), ") Z ") || len(stat) == 0 {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the plugin's child %d outlived it: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
