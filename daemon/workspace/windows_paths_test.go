package workspace_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// TestConfigBackslashesAreSeparators: a config written on Windows, with
// backslashes in projects, inputs and outputs, loads on every OS as its
// slash form: the same projects, the same globs (and so the same key).
func TestConfigBackslashesAreSeparators(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{ "projects": ["packages\\*"], "globalInputs": ["tools\\*.json"],
  "tasks": { "build": { "inputs": ["src\\**", "!src\\**\\*.test.ts", "^dist\\**", "\\tsconfig.json", "npm:left-pad"], "outputs": ["dist\\**"] } } }`,
		"packages/a/package.json":    `{ "name": "a", "scripts": { "build": "x" } }`,
		"packages/b/vx.project.json": `{ "tasks": { "build": { "command": "y", "outputs": ["out\\x.txt"] } } }`,
	})
	if !eq(m.Config.GlobalInputs, []string{"tools/*.json"}) {
		t.Errorf("globalInputs %q, want tools/*.json", m.Config.GlobalInputs)
	}
	if got := projectNames(m.Projects); !eq(got, []string{"a", "b"}) {
		t.Fatalf("projects %v, want a and b from packages\\*", got)
	}
	def, _ := m.Resolve("a", "build")
	if want := []string{"src/**", "!src/**/*.test.ts", "^dist/**", "/tsconfig.json", "npm:left-pad"}; !eq(def.Inputs, want) {
		t.Errorf("a#build inputs %q, want %q", def.Inputs, want)
	}
	if !eq(def.Outputs, []string{"dist/**"}) {
		t.Errorf("a#build outputs %q, want dist/**", def.Outputs)
	}
	if def, _ := m.Resolve("b", "build"); !eq(def.Outputs, []string{"out/x.txt"}) {
		t.Errorf("b#build outputs %q (from vx.project.json), want out/x.txt", def.Outputs)
	}
}

// TestConfigDrivePathsRefused: a drive-letter or UNC path where a
// workspace-relative one belongs is refused on every OS, and so is an
// absolute output, naming the file, the field and the value.
func TestConfigDrivePathsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, file, config, field, value string
		why                              string // "" for a Windows drive or network path
	}{
		{"input with a drive letter", "vx.workspace.json", `{ "tasks": { "build": { "inputs": ["src/**", "C:\\ws\\src\\**"] } } }`, "tasks.build.inputs[1]", `C:\\ws\\src\\**`, ""},
		{"output with forward slashes", "vx.workspace.json", `{ "tasks": { "build": { "outputs": ["d:/out/**"] } } }`, "tasks.build.outputs[0]", `d:/out/**`, ""},
		{"absolute output", "vx.workspace.json", `{ "tasks": { "build": { "outputs": ["dist/**", "/home/me/ws/dist/**"] } } }`, "tasks.build.outputs[1]", `/home/me/ws/dist/**`, "an absolute path"},
		{"rooted output with a backslash", "vx.workspace.json", `{ "tasks": { "build": { "outputs": ["!\\dist\\x"] } } }`, "tasks.build.outputs[0]", `!/dist/x`, "an absolute path"},
		{"negated dependency input", "vx.workspace.json", `{ "tasks": { "build": { "inputs": ["^!C:/x/**"] } } }`, "tasks.build.inputs[0]", `^!C:/x/**`, ""},
		{"negated UNC input", "vx.workspace.json", `{ "tasks": { "build": { "inputs": ["!\\\\server\\share\\x"] } } }`, "tasks.build.inputs[0]", `!\\\\server\\share\\x`, ""},
		{"projects", "vx.workspace.json", `{ "projects": ["C:\\ws\\packages\\*"] }`, "projects[0]", `C:\\ws\\packages\\*`, ""},
		{"globalInputs", "vx.workspace.json", `{ "globalInputs": ["a.json", "\\\\server\\share\\tsconfig.json"] }`, "globalInputs[1]", `\\\\server\\share\\tsconfig.json`, ""},
		{"project config output", "packages/a/vx.project.json", `{ "tasks": { "build": { "outputs": ["C:/dist/**"] } } }`, "tasks.build.outputs[0]", `C:/dist/**`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"vx.workspace.json": `{ "projects": ["packages/*"] }`, "packages/a/package.json": `{ "name": "a" }`}
			files[tc.file] = tc.config
			writeTree(t, root, files)
			_, err := workspace.Load(root)
			if err == nil {
				t.Fatalf("Load accepted %s", tc.config)
			}
			msg := err.Error()
			why := tc.why
			if why == "" {
				why = "Windows drive or network path"
			}
			for _, want := range []string{filepath.Join(root, filepath.FromSlash(tc.file)), tc.field, tc.value, why, "relative to"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not name %q", msg, want)
				}
			}
		})
	}
}

// TestFilterWindowsPaths: a --filter path typed the Windows way
// (.\apps\web) selects what ./apps/web does on every OS; an absolute or
// drive path is refused naming it; a path that differs from a project's
// only in case selects it where the file system folds case, and is
// refused naming the project's own spelling where it does not.
func TestFilterWindowsPaths(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json":        `{ "projects": ["apps/*"] }`,
		"apps/web/package.json":    `{ "name": "web" }`,
		"apps/worker/package.json": `{ "name": "worker" }`,
	})
	sel := func(f string) ([]string, error) {
		s, err := m.Select(context.Background(), wire.Selection{Filters: []string{f}})
		if err != nil {
			return nil, err
		}
		return projectNames(s.Projects), nil
	}
	for _, f := range []string{`.\apps\web`, `./apps\web`, `.\apps\web\`} {
		if got, err := sel(f); err != nil || !eq(got, []string{"web"}) {
			t.Errorf("--filter %s: %v %v, want web", f, got, err)
		}
	}
	if got, err := sel(`.\apps\w*`); err != nil || !eq(got, []string{"web", "worker"}) {
		t.Errorf(`--filter .\apps\w*: %v %v, want web and worker`, got, err)
	}
	for _, f := range []string{`C:\ws\apps\web`, `c:/ws/apps/web`, `\\server\share\apps\web`} {
		_, err := sel(f)
		if err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), "relative to the workspace root") {
			t.Errorf("--filter %s: %v, want a refusal naming it", f, err)
		}
	}
	got, err := sel("./Apps/Web")
	if workspace.FoldsCase {
		if err != nil || !eq(got, []string{"web"}) {
			t.Errorf("--filter ./Apps/Web where case folds: %v %v, want web", got, err)
		}
	} else if err == nil || !strings.Contains(err.Error(), "./apps/web") || !strings.Contains(err.Error(), "case") {
		t.Errorf("--filter ./Apps/Web where case counts: %v %v, want a refusal naming ./apps/web", got, err)
	}
}
