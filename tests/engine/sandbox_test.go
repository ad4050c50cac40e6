//go:build !windows

package engine_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// sbRow is a run summary row with its sandbox violations.
type sbRow struct {
	TaskID     string `json:"taskId"`
	Status     string `json:"status"`
	Cache      string `json:"cache"`
	Key        string `json:"key"`
	Violations []struct {
		Op, Path, Address, Process string
		Denied                     bool
	} `json:"sandboxViolations"`
}

func sbRun(t *testing.T, dir string, env []string, wantCode int, args ...string) (map[string]sbRow, []string, result) {
	t.Helper()
	r := vx(t, dir, env, append(append([]string{"run"}, args...), "--format", "json")...)
	if r.Code != wantCode {
		t.Fatalf("want exit %d\n%s", wantCode, r)
	}
	var s struct {
		Tasks    []sbRow  `json:"tasks"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("decoding the summary: %v\n%s", err, r)
	}
	rows := map[string]sbRow{}
	for _, row := range s.Tasks {
		rows[row.TaskID] = row
	}
	return rows, s.Warnings, r
}

func sandboxWorkspace(t *testing.T, tasks string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	writeFiles(t, ws, map[string]string{
		"vx.workspace.json":   `{ "projects": ["app"], "tasks": ` + tasks + ` }`,
		"app/package.json":    `{ "name": "app" }`,
		"app/src/main.txt":    "main\n",
		".gitignore":          ".vx/\n",
		"app/vx.project.json": `{}`,
	})
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return ws
}

func TestSandboxDeclarationJoinsTheKey(t *testing.T) {
	t.Parallel()
	ws := sandboxWorkspace(t, `{ "build": { "sandbox": { "mode": "enforce" }, "command": "true" }, "plain": { "command": "true" } }`)
	key := func() (string, string) {
		var plan struct {
			Tasks []struct{ TaskID, Key string } `json:"tasks"`
		}
		decodeOnly(t, vxOK(t, ws, nil, "run", "build", "plain", "--dry=json"), &plan)
		m := map[string]string{}
		for _, p := range plan.Tasks {
			m[p.TaskID] = p.Key
		}
		return m["app#build"], m["app#plain"]
	}
	b1, p1 := key()
	writeFiles(t, ws, map[string]string{"vx.workspace.json": `{ "projects": ["app"], "tasks": { "build": { "sandbox": { "mode": "report" }, "command": "true" }, "plain": { "command": "true" } } }`})
	b2, p2 := key()
	if b1 == b2 || p1 != p2 {
		t.Errorf("keys: sandboxed %s → %s (must move), plain %s → %s (must not)", b1, b2, p1, p2)
	}
}
