package workspace_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

func TestSandboxResolvesDefaultAndOverrides(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{ "projects": ["app", "lib"], "sandbox": { "mode": "report", "write": ["tmp/**"] },
			"tasks": { "build": { "command": "b", "sandbox": { "network": false } }, "lint": { "command": "l" } } }`,
		"app/package.json":    `{ "name": "app" }`,
		"lib/package.json":    `{ "name": "lib" }`,
		"lib/vx.project.json": `{ "tasks": { "build": { "sandbox": { "mode": "enforce", "required": true } } } }`,
	})
	got := func(p, task string) *workspace.SandboxDef {
		d, _ := m.Resolve(p, task)
		return d.Sandbox
	}
	want := map[string]workspace.SandboxDef{
		"app#build": {Write: []string{"tmp/**"}, Network: false, Mode: "report"},
		"app#lint":  {Write: []string{"tmp/**"}, Network: true, Mode: "report"},
		"lib#build": {Write: []string{"tmp/**"}, Network: false, Mode: "enforce", Required: true},
	}
	for id, w := range want {
		p, task, _ := workspace.SplitTaskID(id)
		if g := got(p, task); g == nil || !reflect.DeepEqual(*g, w) {
			t.Errorf("%s sandbox = %+v, want %+v", id, g, w)
		}
	}
	if n := m.Sandboxed(); n != 4 {
		t.Errorf("Sandboxed() = %d, want 4 (build and lint in two projects)", n)
	}
	plain := loadTree(t, map[string]string{"vx.workspace.json": `{ "projects": ["app"], "tasks": { "build": { "command": "b" } } }`, "app/package.json": `{ "name": "app" }`})
	if d, _ := plain.Resolve("app", "build"); d.Sandbox != nil || plain.Sandboxed() != 0 {
		t.Errorf("a task with no sandbox anywhere resolves %+v", d.Sandbox)
	}
}

func TestSandboxRefusesBadDeclarations(t *testing.T) {
	for _, tc := range []struct{ name, config, want string }{
		{"mode", `{ "tasks": { "build": { "sandbox": { "mode": "strict" } } } }`, `tasks.build.sandbox.mode: "strict" is not a sandbox mode (use "enforce" or "report")`},
		{"empty glob", `{ "tasks": { "build": { "sandbox": { "write": ["dist/**", " "] } } } }`, `tasks.build.sandbox.write[1]: " " is not a path glob`},
		{"default", `{ "sandbox": { "mode": "" } }`, `sandbox.mode: "" is not a sandbox mode`},
		{"unknown key", `{ "tasks": { "build": { "sandbox": { "net": false } } } }`, `net`},
		{"type", `{ "tasks": { "build": { "sandbox": { "network": "no" } } } }`, `network`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"vx.workspace.json": tc.config})
			_, err := workspace.Load(root)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
