//go:build !windows

package engine_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxOnAHostWithNone is what macOS gets (no Landlock, no seccomp):
// vx info says the sandbox is not available, a run says so once however
// many tasks declare one and runs them unconfined, and a required sandbox
// refuses the run before anything starts. VX_SANDBOX_FORCE_UNAVAILABLE
// gives Linux the same verdict Detect answers on macOS.
func TestSandboxOnAHostWithNone(t *testing.T) {
	t.Parallel()
	ws := sandboxWorkspace(t, `{
		"one":   { "cache": false, "sandbox": { "mode": "enforce" }, "command": "echo x > ../one" },
		"two":   { "cache": false, "sandbox": { "mode": "report" }, "command": "echo x > ../two" },
		"three": { "cache": false, "sandbox": { "mode": "enforce" }, "command": "echo x > ../three" },
		"all":   { "cache": false, "dependsOn": ["one", "two", "three"], "command": "true" },
		"first": { "cache": false, "command": "echo ran > ../first-ran" },
		"req":   { "cache": false, "dependsOn": ["first"], "sandbox": { "required": true }, "command": "echo x > ../req" }
	}`)
	none := []string{"VX_SANDBOX_FORCE_UNAVAILABLE=1"}
	var info struct {
		Sandbox struct {
			Landlock bool
			Enforced []string
			Observer string
			Reason   string
		} `json:"sandbox"`
	}
	decodeOnly(t, vxOK(t, ws, none, "info", "--format", "json"), &info)
	if info.Sandbox.Landlock || len(info.Sandbox.Enforced) != 0 || info.Sandbox.Observer != "" || !strings.Contains(info.Sandbox.Reason, "the sandbox is not available on") {
		t.Errorf("verdict = %+v", info.Sandbox)
	}
	if text := vxOK(t, ws, none, "info"); !strings.Contains(text.Stdout, "no sandbox: sandboxed tasks run unconfined, a required one refuses the run") {
		t.Errorf("vx info does not say the host has no sandbox\n%s", text)
	}

	rows, warns, r := sbRun(t, ws, none, 0, "all")
	var sandboxWarns []string
	for _, w := range warns {
		if strings.Contains(w, "sandbox") {
			sandboxWarns = append(sandboxWarns, w)
		}
	}
	if len(sandboxWarns) != 1 || !strings.Contains(sandboxWarns[0], "every task that declares a sandbox runs unconfined") {
		t.Errorf("want one warning for the run, got %q\n%s", sandboxWarns, r)
	}
	for _, f := range []string{"one", "two", "three"} {
		if !exists(filepath.Join(ws, f)) || len(rows["app#"+f].Violations) != 0 {
			t.Errorf("app#%s: want it run unconfined, nothing observed: wrote %v, violations %+v", f, exists(filepath.Join(ws, f)), rows["app#"+f].Violations)
		}
	}

	r = vx(t, ws, none, "run", "req")
	if r.Code == 0 || !strings.Contains(r.Stderr, "app#req declares a required sandbox") || !strings.Contains(r.Stderr, "not available") ||
		exists(filepath.Join(ws, "first-ran")) || exists(filepath.Join(ws, "req")) {
		t.Errorf("want the run refused before anything ran\n%s", r)
	}
}
