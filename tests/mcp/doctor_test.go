//go:build !windows

package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

type doctorOut struct {
	OK     bool `json:"ok"`
	Checks []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Detail string `json:"detail"`
		Fix    string `json:"fix"`
	} `json:"checks"`
	MCPConfig string `json:"mcpConfig"`
}

func (d doctorOut) check(name string) (status, detail, fix string) {
	for _, c := range d.Checks {
		if c.Name == name {
			return c.Status, c.Detail, c.Fix
		}
	}
	return "", "", ""
}

func doctor(t *testing.T, root string, env ...string) (doctorOut, result) {
	t.Helper()
	r := run(t, root, env, vxBin, "doctor", "--format", "json")
	var out doctorOut
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("vx doctor --format json: %v\n%s", err, r)
	}
	return out, r
}

// TestDoctor: vx doctor passes a healthy workspace (exit 0) and names each
// problem with its fix (exit 1): vx not on PATH, not a git repository, a
// damaged history, a configuration that does not load, a stale vx.lock.
func TestDoctor(t *testing.T) {
	root := workspace(t, "policy")
	onPath := "PATH=" + filepath.Dir(vxBin) + ":" + os.Getenv("PATH")
	if r := run(t, root, nil, vxBin, "run", "lint"); r.Code != 0 {
		t.Fatalf("vx run lint\n%s", r)
	}
	out, r := doctor(t, root, onPath)
	if r.Code != 0 || !out.OK {
		t.Fatalf("a healthy workspace: exit %d\n%s", r.Code, r.Stdout)
	}
	for _, name := range []string{"git", ".vx writable", "history", "config", "lock", "daemon", "vx on PATH"} {
		if st, _, _ := out.check(name); st != "ok" {
			t.Errorf("check %q: %q", name, st)
		}
	}
	if !strings.Contains(out.MCPConfig, `"command": "vx"`) || !strings.Contains(out.MCPConfig, `"mcp"`) {
		t.Errorf("mcpConfig %s", out.MCPConfig)
	}
	text := run(t, root, []string{onPath}, vxBin, "doctor")
	if text.Code != 0 || !strings.Contains(text.Stdout, "nothing stops vx here") || !strings.Contains(text.Stdout, ".mcp.json") {
		t.Errorf("vx doctor (text)\n%s", text)
	}

	// vx not on PATH: the configuration names the executable instead.
	out, r = doctor(t, root, "PATH=/usr/bin:/bin")
	if st, _, fix := out.check("vx on PATH"); r.Code != 1 || st != "problem" || fix == "" || !strings.Contains(out.MCPConfig, vxBin) {
		t.Errorf("vx off PATH: exit %d, %s %q, config %s", r.Code, st, fix, out.MCPConfig)
	}

	for _, tc := range []struct {
		name, check, detail string
		break_              func()
	}{
		{"stale lock", "lock", "out of date", func() {
			if r := run(t, root, nil, vxBin, "lock"); r.Code != 0 {
				t.Fatalf("vx lock\n%s", r)
			}
			setRunPolicy(t, root, "")
			harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{"command":"echo changed"},"nap":{"cache":false}}}`)
		}},
		{"damaged history", "history", "vx.db", func() {
			harness.WriteFile(t, filepath.Join(root, ".vx", "vx.db"), "this is not a database, just text long enough to be read as a header")
		}},
		{"broken config", "config", "vx.workspace.json", func() {
			harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects":["pkgs/*"],"workers":-1}`)
		}},
		{"not a repository", "git", "not inside a git repository", func() {
			if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.break_()
			out, r := doctor(t, root, onPath)
			st, detail, fix := out.check(tc.check)
			if r.Code != 1 || out.OK || st != "problem" || !strings.Contains(detail, tc.detail) || fix == "" {
				t.Errorf("exit %d ok %v; %s: %s %q fix %q", r.Code, out.OK, tc.check, st, detail, fix)
			}
		})
	}
}

// TestDiagnoseTool: the same checks as a read-only MCP tool inside vxd.
func TestDiagnoseTool(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	tl := toolNames(t, cs)["diagnose"]
	if tl == nil || !tl.Annotations.ReadOnlyHint {
		t.Fatalf("diagnose is not a read-only tool: %+v", tl)
	}
	var out doctorOut
	callOK(t, cs, "diagnose", map[string]any{}).structured(t, &out)
	if st, detail, _ := out.check("daemon"); st != "ok" || !strings.Contains(detail, "this vxd") {
		t.Errorf("daemon check %s %q", st, detail)
	}
	if st, _, _ := out.check("config"); st != "ok" {
		t.Errorf("config check %s", st)
	}
}
