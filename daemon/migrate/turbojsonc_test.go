package migrate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// writeLayout writes files (relative path → text) under a new temp dir.
func writeLayout(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTurboJSONCMigrated: turbo reads its configuration from turbo.jsonc as
// well as turbo.json (nextra's is turbo.jsonc, with comments), at the root
// and in packages. vx init translates it as it does turbo.json, instead of
// proposing tasks from package.json scripts and losing every dependsOn,
// output and global input it declares.
func TestTurboJSONCMigrated(t *testing.T) {
	dir := writeLayout(t, map[string]string{
		"package.json":        `{"name": "root", "workspaces": ["pkgs/*"]}`,
		"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "echo a", "types:check": "tsc"}}`,
		"pkgs/b/package.json": `{"name": "b", "dependencies": {"a": "*"}, "scripts": {"build": "echo b", "types:check": "tsc"}}`,
		"turbo.jsonc": `{
			"globalDependencies": ["lock.yaml"],
			"tasks": {
				"build": { "dependsOn": ["^build"], "outputs": ["dist/**"] },
				// checks types once the packages it reads are built
				"types:check": { "dependsOn": ["^build"] }
			}
		}`,
		"pkgs/a/turbo.jsonc": `{ "extends": ["//"], "tasks": { "build": { "outputs": ["out/**"] } } }`,
	})
	p, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != sourceTurbo || !strings.Contains(p.Files[0].Text, "from turbo.jsonc") {
		t.Fatalf("source %q; want turbo.jsonc translated\n%s", p.Source, p.Files[0].Text)
	}
	if _, err := Apply(p, dir, nil); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(dir)
	if err != nil {
		t.Fatalf("loading the written config: %v", err)
	}
	if !slices.Contains(m.Config.GlobalInputs, "lock.yaml") {
		t.Errorf("globalInputs %v, want lock.yaml", m.Config.GlobalInputs)
	}
	if d, ok := m.Resolve("b", "types:check"); !ok || !slices.Equal(d.DependsOn, []string{"^build"}) {
		t.Errorf("b#types:check dependsOn %v (found %v), want [^build]", d.DependsOn, ok)
	}
	if d, ok := m.Resolve("a", "build"); !ok || !slices.Equal(d.Outputs, []string{"out/**"}) {
		t.Errorf("a#build outputs %v (found %v), want the package turbo.jsonc's [out/**]", d.Outputs, ok)
	}
}

// TestTurboJSONAndJSONCBoth: turbo refuses a directory with both files;
// vx init translates turbo.json and says the other was not read.
func TestTurboJSONAndJSONCBoth(t *testing.T) {
	dir := writeLayout(t, map[string]string{
		"package.json":        `{"name": "root", "workspaces": ["pkgs/*"]}`,
		"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "echo a"}}`,
		"turbo.json":          `{"tasks": {"build": {"outputs": ["dist/**"]}}}`,
		"turbo.jsonc":         `{"tasks": {"build": {"outputs": ["other/**"]}}}`,
	})
	p, err := PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Files[0].Text, "from turbo.json\n") || !strings.Contains(p.Files[0].Text, "dist/**") {
		t.Errorf("want turbo.json translated\n%s", p.Files[0].Text)
	}
	var said bool
	for _, td := range p.Todos {
		said = said || (td.File == "turbo.jsonc" && strings.Contains(td.Reason, "turbo.json"))
	}
	if !said {
		t.Errorf("no todo about turbo.jsonc beside turbo.json: %+v", p.Todos)
	}
}
