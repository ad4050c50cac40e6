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

	"github.com/vzn/vx/internal/procmark"
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
	needNode(t)
	if os.Getenv(asSubreaperEnv) == "1" {
		procmark.BecomeSubreaper()
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
			// Gone, or dead and its new parent's (init's) to reap.
			if state, ppid, ok := procState(pid); ok && (state != "Z" || ppid == os.Getpid()) {
				t.Fatalf("mode %s: the plugin's detached grandchild %d outlived the request (state %s, parent %d)", mode, pid, state, ppid)
			}
		})
	}
}

// asSubreaperEnv, set to 1, runs TestADetachedGrandchildEndsWithTheRequest
// in a process that made itself a subreaper first (a vx that ran tasks
// without a cgroup), which is process-wide: another test process.
const asSubreaperEnv = "VX_TEST_PLUGIN_AS_SUBREAPER"

// TestADetachedGrandchildEndsWithTheRequestInASubreaper: in a process
// that is its descendants' subreaper, the plugin's detached grandchild
// comes to it once orphaned, and is killed and reaped there (no zombie of
// it is left).
func TestADetachedGrandchildEndsWithTheRequestInASubreaper(t *testing.T) {
	if os.Getenv(asSubreaperEnv) == "1" {
		t.Skip("already in the subreaper's process")
	}
	needNode(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestADetachedGrandchildEndsWithTheRequest$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), asSubreaperEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestADetachedGrandchildEndsWithTheRequest") {
		t.Fatalf("as a subreaper: %v\n%s", err, out)
	}
}

// TestAPluginRequestAdoptsNoOtherOrphan: after a plugin request, a
// process that another child of the caller left behind and that then
// exits is not left a zombie of the caller. (vxd lives long and starts
// children that orphan theirs, such as a run's watchdog: were it their
// subreaper, each would stay a zombie of it until it exits.)
func TestAPluginRequestAdoptsNoOtherOrphan(t *testing.T) {
	needNode(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "detach.mjs"), []byte(detachingPlugin), 0o644); err != nil {
		t.Fatal(err)
	}
	d := Decl{Spec: "./detach.mjs", Options: json.RawMessage(`{"mode":"answer"}`), File: "vx.workspace.json"}
	e, err := resolve(root, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := (Runner{Root: root}).Call(context.Background(), d, e, plugin.Request{Stage: "describe"}); err != nil {
		t.Fatalf("%v (stderr %q)", err, stderr)
	}
	// A child that starts a grandchild and exits first: the grandchild,
	// orphaned, exits once the file "go" exists.
	gate := filepath.Join(root, "go")
	out, err := exec.Command("sh", "-c", `(while [ ! -e "$1" ]; do sleep 0.05; done) >/dev/null 2>&1 & echo $!`, "sh", gate).Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if pid <= 1 {
		t.Fatalf("orphan pid %q", out)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// It is gone once its parent (init, or whoever adopted it) reaps it;
	// a zombie whose parent is this process stays one.
	for {
		state, ppid, ok := procState(pid)
		switch {
		case !ok:
			return // gone: reaped
		case state == "Z" && ppid != os.Getpid():
			return // dead, another process's to reap
		case state == "Z":
			_, _ = syscall.Wait4(pid, nil, 0, nil)
			t.Fatalf("an orphan of another child became this process's zombie after a plugin request (it was made their subreaper)")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procState is process pid's state letter and parent, ok false when it
// is gone.
func procState(pid int) (string, int, bool) {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
	if len(f) < 2 {
		return "", 0, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return f[0], ppid, true
}

// needNode skips (fails with CI=true) where node is not on PATH.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: this test runs a Node plugin")
	}
}
