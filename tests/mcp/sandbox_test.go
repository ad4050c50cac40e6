//go:build !windows

package mcp_test

import (
	"path/filepath"
	"testing"
)

// violation is one sandboxViolations entry as a client reads it.
type violation struct {
	Op      string `json:"op"`
	Path    string `json:"path"`
	Process string `json:"process"`
	Denied  bool   `json:"denied"`
}

// TestSandboxOverMCP: a task denied into failure carries its violation on
// getFailures and getRunHistory; getConfig shows the resolved sandbox and
// getWorkspaceInfo the host's verdict and how many tasks declare one.
func TestSandboxOverMCP(t *testing.T) {
	root := workspace(t, "sandbox")
	s := vxRun(t, root, nil, 1, "build")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	want := violation{Op: "create", Path: filepath.Join(root, "escape"), Process: "sh", Denied: true}

	var f struct {
		RunID    string `json:"runId"`
		Failures []struct {
			TaskID            string      `json:"taskId"`
			SandboxViolations []violation `json:"sandboxViolations"`
		} `json:"failures"`
	}
	callOK(t, cs, "getFailures", map[string]any{}).structured(t, &f)
	if f.RunID != s.RunID || len(f.Failures) != 1 || len(f.Failures[0].SandboxViolations) != 1 || f.Failures[0].SandboxViolations[0] != want {
		t.Errorf("getFailures = %+v, want app#build with %+v", f, want)
	}

	var h struct {
		Recent []struct {
			TaskID            string      `json:"taskId"`
			SandboxViolations []violation `json:"sandboxViolations"`
		} `json:"recent"`
	}
	callOK(t, cs, "getRunHistory", map[string]any{}).structured(t, &h)
	if len(h.Recent) != 1 || len(h.Recent[0].SandboxViolations) != 1 || h.Recent[0].SandboxViolations[0] != want {
		t.Errorf("getRunHistory recent = %+v", h.Recent)
	}

	var c struct {
		Projects []struct {
			Tasks []struct {
				Sandbox *struct {
					Mode    string   `json:"mode"`
					Network bool     `json:"network"`
					Write   []string `json:"write"`
				} `json:"sandbox"`
			} `json:"tasks"`
		} `json:"projects"`
	}
	callOK(t, cs, "getConfig", map[string]any{"target": "app#build"}).structured(t, &c)
	if len(c.Projects) != 1 || len(c.Projects[0].Tasks) != 1 || c.Projects[0].Tasks[0].Sandbox == nil ||
		c.Projects[0].Tasks[0].Sandbox.Mode != "enforce" || c.Projects[0].Tasks[0].Sandbox.Network || len(c.Projects[0].Tasks[0].Sandbox.Write) != 1 {
		t.Errorf("getConfig app#build = %+v", c)
	}

	var info struct {
		Sandbox struct {
			Landlock bool     `json:"landlock"`
			ABI      int      `json:"abi"`
			Enforced []string `json:"enforced"`
			Observer string   `json:"observer"`
			Tasks    int      `json:"tasks"`
		} `json:"sandbox"`
	}
	callOK(t, cs, "getWorkspaceInfo", map[string]any{}).structured(t, &info)
	if !info.Sandbox.Landlock || info.Sandbox.ABI == 0 || len(info.Sandbox.Enforced) == 0 || info.Sandbox.Observer == "" || info.Sandbox.Tasks != 1 {
		t.Errorf("getWorkspaceInfo sandbox = %+v", info.Sandbox)
	}
}
