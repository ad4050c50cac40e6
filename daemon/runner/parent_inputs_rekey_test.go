package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/internal/wine"
	"github.com/vzn/vx/protocol/wire"
)

// parentPlugin infers a task "check" for each project holding a
// check.json, naming the workspace's shared files from the project's
// directory, as a plugin that follows a tsconfig's "extends" does.
const parentPlugin = `import { readFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
const say = (o) => process.stdout.write(JSON.stringify({ protocol: 1, ...o }));
if (req.stage === "describe") say({ name: "parent", version: "1", stages: ["tasks"], globs: ["**/check.json"] });
else say({ tasks: req.files.map((file) => ({
  project: req.projects.find((p) => file === p.root + "/check.json").name, name: "check", file, command: "true",
  inputs: ["**", "../../shared/**", "!../../shared/skip.txt", "./../../base.json"] })) });
`

// TestParentInputsRekey: a task input that climbs out of its project
// ("../../base.json") but stays in the workspace names that workspace
// file, whether a plugin inferred it or vx.workspace.json configures it
// (as turbo.json reads such an input, which vx init keeps): editing the
// file moves the task's key, as a "/" input does, where the input used to
// match nothing and leave the key as it was. One that leaves the workspace
// from a project ("../../../x" from p/app) still names nothing.
func TestParentInputsRekey(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		wine.Skip(t, "the wine prefix has no Node for Windows")
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH (this test runs a real Node plugin)")
		}
		t.Skip("node is not on PATH: this test runs a real Node plugin")
	}
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":  `{"projects": ["p/*"], "plugins": ["./tools/parent.mjs"], "tasks": {"conf": {"command": "true", "inputs": ["src/**", "../../shared/**", "!../../shared/skip.txt", "src/../../../base.json", "../../../outside.json"]}}}`,
		"tools/parent.mjs":   parentPlugin,
		"p/app/package.json": `{"name": "app"}`,
		"p/app/check.json":   `{}`,
		"base.json":          `{}`,
		"shared/types.txt":   "a",
		"shared/skip.txt":    "a",
		"other.json":         `{}`,
	})
	load := func() (*workspace.Model, map[string]string) {
		t.Helper()
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		p, err := runner.Prepare(context.Background(), &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"check", "conf"}}, Environ: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		return m, p.Keys
	}
	m, _ := load()
	for task, want := range map[string][]string{
		"check": {"**", "/shared/**", "!/shared/skip.txt", "/base.json"},
		"conf":  {"src/**", "/shared/**", "!/shared/skip.txt", "/base.json", "../../../outside.json"},
	} {
		if def, _ := m.Resolve("app", task); !slices.Equal(def.Inputs, want) {
			t.Errorf("app#%s inputs %q, want %q", task, def.Inputs, want)
		}
	}
	for _, c := range []struct {
		file  string
		moved bool
	}{
		{"base.json", true},
		{"shared/types.txt", true},
		{"shared/skip.txt", false},
		{"other.json", false},
	} {
		_, before := load()
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(c.file)), []byte(`{"edited": true}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, after := load()
		for _, id := range []string{"app#check", "app#conf"} {
			if moved := before[id] != after[id]; moved != c.moved {
				t.Errorf("editing %s: %s key moved %v, want %v", c.file, id, moved, c.moved)
			}
		}
	}
}
