package workspace_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/wine"
)

// needNode skips without node outside CI; with CI=true a missing node fails.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		wine.Skip(t, "the wine prefix has no Node for Windows (the plugin tests run real Node plugins)")
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH (the plugin tests run real Node plugins)")
		}
		t.Skip("node is not on PATH: the plugin tests run real Node plugins")
	}
}

// referencePlugin is the repository's reference client.
func referencePlugin(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "plugins", "vx-plugin-reference.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pluginTree is a workspace of two projects, a with a vx-ref.json and b
// with a script, declaring the reference plugin with a start log.
func pluginTree(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"package.json":             `{"name":"root","workspaces":["packages/*"]}`,
		"vx.workspace.json":        `{"plugins":[{"plugin":"./tools/ref.mjs","options":{"log":"starts.log"}}]}`,
		"tools/ref.mjs":            referencePlugin(t),
		"packages/a/package.json":  `{"name":"a","scripts":{"build":"echo build a"}}`,
		"packages/a/vx-ref.json":   `{"command":"echo ref a","outputs":["out/**"]}`,
		"packages/b/package.json":  `{"name":"b","scripts":{"build":"echo build b"}}`,
		"packages/b/src/index.txt": "b",
	}
	for k, v := range extra {
		files[k] = v
	}
	writeTree(t, root, files)
	return root
}

func mustLoad(t *testing.T, root string) *workspace.Model {
	t.Helper()
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

func starts(t *testing.T, root string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(root, "starts.log"))
	return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ",")
}

// TestPluginInfersTasks: the reference plugin's task is part of the model,
// marked with the plugin and file it came from.
func TestPluginInfersTasks(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	m := mustLoad(t, root)
	if ps := m.Plugins(); len(ps) != 1 || ps[0].Error != "" || ps[0].Name != "reference" || ps[0].Tasks != 1 {
		t.Fatalf("plugins: %+v", ps)
	}
	def, ok := m.Resolve("a", "ref")
	if !ok || def.Command != "echo ref a" || def.CommandSource != "plugin" || strings.Join(def.Outputs, ",") != "out/**" {
		t.Fatalf("a#ref: %v %+v", ok, def)
	}
	if def.InferredFrom == nil || def.InferredFrom.Plugin != "reference" || def.InferredFrom.File != "packages/a/vx-ref.json" {
		t.Fatalf("a#ref inferredFrom: %+v", def.InferredFrom)
	}
	if _, ok := m.Resolve("b", "ref"); ok {
		t.Fatal("b has no vx-ref.json, yet has a ref task")
	}
	if !m.KnownTask("ref") {
		t.Fatal("ref is not a known task name")
	}
	if _, err := m.Build([]string{"ref"}, nil, false); err != nil {
		t.Fatalf("Build: %v", err)
	}
}

// TestConfiguredTaskOverridesInferredFieldByField: a configured field
// replaces the plugin's; the fields it leaves out keep the plugin's.
func TestConfiguredTaskOverridesInferredFieldByField(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json":          `{"plugins":["./tools/ref.mjs"],"tasks":{"ref":{"cache":false}}}`,
		"packages/a/vx.project.json": `{"tasks":{"ref":{"outputs":["dist/**"]}}}`,
	})
	m := mustLoad(t, root)
	def, _ := m.Resolve("a", "ref")
	if def.Command != "echo ref a" || def.Cache || strings.Join(def.Outputs, ",") != "dist/**" || strings.Join(def.Inputs, ",") != "**/*" {
		t.Fatalf("a#ref merged: %+v", def)
	}
	if def.InferredFrom == nil {
		t.Fatal("an overridden inferred task lost its origin")
	}
}

// TestWarmLoadStartsNoPlugin: the second load reuses the stored answers;
// editing a matched file asks the tasks stage again, and only it.
func TestWarmLoadStartsNoPlugin(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks" {
		t.Fatalf("cold load started %q", got)
	}
	m := mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks" {
		t.Fatalf("warm load started a plugin: %q", got)
	}
	if def, _ := m.Resolve("a", "ref"); def.Command != "echo ref a" {
		t.Fatalf("warm a#ref: %+v", def)
	}
	writeTree(t, root, map[string]string{"packages/a/vx-ref.json": `{"command":"echo changed"}`})
	m = mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks" {
		t.Fatalf("after an edit: %q", got)
	}
	if def, _ := m.Resolve("a", "ref"); def.Command != "echo changed" {
		t.Fatalf("edited a#ref: %+v", def)
	}
	writeTree(t, root, map[string]string{"packages/b/vx-ref.json": `{"command":"echo ref b"}`})
	m = mustLoad(t, root)
	if def, ok := m.Resolve("b", "ref"); !ok || def.Command != "echo ref b" {
		t.Fatalf("a new matched file did not infer b#ref: %+v", def)
	}
	writeTree(t, root, map[string]string{"tools/ref.mjs": referencePlugin(t) + "\n// upgraded\n"})
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks,tasks,describe,tasks" {
		t.Fatalf("after the plugin changed: %q", got)
	}
}

// TestPluginFromPackage: a package name resolves through
// node_modules/<name>/package.json's "vx": {"plugin": …}; an entry that
// leaves the package is refused.
func TestPluginFromPackage(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json":                             `{"plugins":["@vzn/vx-plugin-ref","vx-plugin-escape"]}`,
		"node_modules/@vzn/vx-plugin-ref/package.json":  `{"name":"@vzn/vx-plugin-ref","version":"1.0.0","vx":{"plugin":"./lib/index.mjs"}}`,
		"node_modules/@vzn/vx-plugin-ref/lib/index.mjs": referencePlugin(t),
		"node_modules/vx-plugin-escape/package.json":    `{"name":"vx-plugin-escape","vx":{"plugin":"../../tools/ref.mjs"}}`,
	})
	m := mustLoad(t, root)
	ps := m.Plugins()
	if len(ps) != 2 || ps[0].Error != "" || ps[0].Entry != "node_modules/@vzn/vx-plugin-ref/lib/index.mjs" || ps[0].Tasks != 1 {
		t.Fatalf("package plugin: %+v", ps)
	}
	if !strings.Contains(ps[1].Error, "plugin vx-plugin-escape") || !strings.Contains(ps[1].Error, "outside") {
		t.Fatalf("an entry outside its package was not refused: %+v", ps[1])
	}
	if def, ok := m.Resolve("a", "ref"); !ok || def.InferredFrom == nil || def.InferredFrom.Plugin != "reference" {
		t.Fatalf("a#ref from the package: %+v", def)
	}
}

// TestServingKeepsLastGoodAnswer: under vxd a plugin that starts failing
// keeps its last good tasks, with the failure shown; a one-shot load
// drops them.
func TestServingKeepsLastGoodAnswer(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	writeTree(t, root, map[string]string{"tools/ref.mjs": "process.exit(9)\n"})
	m, err := workspace.LoadServing(root)
	if err != nil {
		t.Fatal(err)
	}
	ps := m.Plugins()
	if len(ps) != 1 || !ps[0].Stale || !strings.Contains(ps[0].Error, "exit status 9") {
		t.Fatalf("serving: %+v", ps)
	}
	if def, ok := m.Resolve("a", "ref"); !ok || def.Command != "echo ref a" {
		t.Fatalf("the last good a#ref is gone: %+v", def)
	}
	if _, ok := mustLoad(t, root).Resolve("a", "ref"); ok {
		t.Fatal("a one-shot load kept a failing plugin's tasks")
	}
}

// TestInferredCommandOverScriptUnderConfig: an inferred command is used
// over a package.json script of the same name; a configured command wins
// over both, keeping the inferred origin.
func TestInferredCommandOverScriptUnderConfig(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"packages/a/package.json": `{"name":"a","scripts":{"ref":"echo script"}}`,
	})
	if def, _ := mustLoad(t, root).Resolve("a", "ref"); def.Command != "echo ref a" || def.CommandSource != "plugin" {
		t.Fatalf("inferred over script: %+v", def)
	}
	writeTree(t, root, map[string]string{"packages/a/vx.project.json": `{"tasks":{"ref":{"command":"echo configured"}}}`})
	def, _ := mustLoad(t, root).Resolve("a", "ref")
	if def.Command != "echo configured" || def.CommandSource != "config" || def.InferredFrom == nil {
		t.Fatalf("configured over inferred: %+v", def)
	}
}
