package plugins

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/plugin"
)

// detachingPlugin starts `sleep 30` in a session of its own (Node's
// detached spawn, which calls setsid), writes its pid to the file
// "grandchild" in the workspace, then answers, crashes or hangs as its
// options' "mode" says.
const detachingPlugin = `
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
child.unref();
writeFileSync("grandchild", String(child.pid));
if (req.options.mode === "crash") process.exit(3);
if (req.options.mode === "hang") setInterval(() => {}, 1000);
else process.stdout.write(JSON.stringify({ protocol: 1, name: "detacher" }));
`

// TestADetachedGrandchildEndsWithTheRequest: a process a plugin starts in
// a new session (out of the plugin's process group) is gone when the
// request returns, whether the plugin answered, crashed or timed out.
func TestADetachedGrandchildEndsWithTheRequest(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: this test runs a Node plugin")
	}
	for _, mode := range []string{"answer", "crash", "hang"} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "detach.mjs"), []byte(detachingPlugin), 0o644); err != nil {
				t.Fatal(err)
			}
			opts, _ := json.Marshal(map[string]string{"mode": mode})
			d := Decl{Spec: "./detach.mjs", Options: opts, File: "vx.workspace.json"}
			if mode == "hang" {
				d.Timeout = 8 * time.Second
			}
			e, err := resolve(root, d)
			if err != nil {
				t.Fatal(err)
			}
			_, stderr, err := Runner{Root: root}.Call(context.Background(), d, e, plugin.Request{Stage: "describe"})
			if (err == nil) != (mode == "answer") {
				t.Fatalf("mode %s: error %v (stderr %q)", mode, err, stderr)
			}
			b, rerr := os.ReadFile(filepath.Join(root, "grandchild"))
			if rerr != nil {
				t.Fatalf("the plugin did not record its grandchild: %v (error %v, stderr %q)", rerr, err, stderr)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pid <= 1 {
				t.Fatalf("grandchild pid %q", b)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if syscall.Kill(pid, 0) == nil {
				state := "running"
				if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
					state = string(st)
				}
				t.Fatalf("mode %s: the plugin's detached grandchild %d outlived the request (%s)", mode, pid, state)
			}
		})
	}
}
