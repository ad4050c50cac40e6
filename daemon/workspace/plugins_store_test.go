package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestHandEditedPluginStoreIsNotTrusted: answers in .vx/plugins edited by
// hand (a task's output led outside the workspace, a verb renamed to a
// built-in's) are not taken: the plugin's own answers are.
func TestHandEditedPluginStoreIsNotTrusted(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	store := onlyStore(t, root)
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"out/**"`, `"../../../etc/**"`, 1)
	edited = strings.Replace(edited, `"name":"tasks-of"`, `"name":"Tasks Of!"`, 1)
	if edited == string(b) || !strings.Contains(edited, "etc/**") || !strings.Contains(edited, "Tasks Of!") {
		t.Fatalf("the store does not hold what the test edits:\n%s", b)
	}
	if err := os.WriteFile(store, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustLoad(t, root)
	def, ok := m.Resolve("a", "ref")
	if !ok || strings.Join(def.Outputs, ",") != "out/**" {
		t.Errorf("a's ref after the edit: %v %+v", ok, def)
	}
	ps := m.Plugins()
	if len(ps) != 1 || len(ps[0].Commands) != 1 || ps[0].Commands[0].Name != "tasks-of" {
		t.Errorf("plugins after the edit: %+v", ps)
	}
}

// TestPluginDescribeIsMasked: a secret value the workspace declares never
// shows in what a plugin's describe answer puts before the user (its
// version and its verbs' summaries: vx info, vx help, MCP tools).
func TestPluginDescribeIsMasked(t *testing.T) {
	needNode(t)
	const secret = "hunter2-very-secret-value"
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/sum.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`,
		"tools/sum.cjs": `require("fs").readFileSync(0, "utf8");
process.stdout.write(JSON.stringify({protocol:1,name:"sum",version:"` + secret + `",stages:["commands"],commands:[{name:"leak",summary:"uses ` + secret + `"}]}));`,
	})
	ps := mustLoad(t, root).Plugins()
	if len(ps) != 1 || len(ps[0].Commands) != 1 {
		t.Fatalf("plugins: %+v", ps)
	}
	if strings.Contains(ps[0].Version, secret) || strings.Contains(ps[0].Commands[0].Summary, secret) {
		t.Fatalf("the secret shows: %+v", ps[0])
	}
}

// TestServingChecksTheLastGoodAnswer: the last good answers vxd serves
// for a plugin that now fails are the ones vx stored: one edited by hand
// to lead outside the workspace is not served.
func TestServingChecksTheLastGoodAnswer(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	store := onlyStore(t, root)
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"out/**"`, `"../../../etc/**"`, 1)
	if edited == string(b) {
		t.Fatalf("the store does not hold what the test edits:\n%s", b)
	}
	writeTree(t, root, map[string]string{"tools/ref.mjs": "process.exit(9)\n"})
	if err := os.WriteFile(store, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.LoadServing(root)
	if err != nil {
		t.Fatal(err)
	}
	if ps := m.Plugins(); len(ps) != 1 || !strings.Contains(ps[0].Error, "exit status 9") {
		t.Fatalf("serving: %+v", ps)
	}
	if def, ok := m.Resolve("a", "ref"); ok {
		t.Fatalf("an edited last answer is served: %+v", def)
	}
}

// onlyStore is the path of the one plugin store the workspace at root
// holds; the test fails when there is not exactly one.
func onlyStore(t *testing.T, root string) string {
	t.Helper()
	stores, err := filepath.Glob(filepath.Join(root, ".vx", "plugins", "*.json"))
	if err != nil || len(stores) != 1 {
		t.Fatalf("stores: %v %v", stores, err)
	}
	return stores[0]
}

// TestAnswersOfAPluginNoLongerDeclaredGo: when the plugins are asked
// again (here: one declaration removed, another added), the stored
// answers of a plugin no longer declared and a store of an older form are
// removed; the declared plugin's store and other files stay.
func TestAnswersOfAPluginNoLongerDeclaredGo(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{"tools/other.mjs": referencePlugin(t)})
	mustLoad(t, root)
	dir := filepath.Join(root, ".vx", "plugins")
	before, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(before) != 1 {
		t.Fatalf("stores after the first load: %v", before)
	}
	for name, text := range map[string]string{"0123456789abcdef01234567.3.json": "{}", ".x.4.json.tmp1": "", "notes.txt": "kept"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, root, map[string]string{"vx.workspace.json": `{"plugins":[{"plugin":"./tools/other.mjs","options":{"log":"starts.log"}}]}`})
	m := mustLoad(t, root)
	if _, ok := m.Resolve("a", "ref"); !ok {
		t.Fatal("the declared plugin's task is missing")
	}
	after, _ := os.ReadDir(dir)
	var names []string
	for _, e := range after {
		names = append(names, e.Name())
	}
	if len(names) != 3 || slices.Contains(names, filepath.Base(before[0])) || slices.Contains(names, "0123456789abcdef01234567.3.json") ||
		!slices.Contains(names, "notes.txt") || !slices.Contains(names, ".x.4.json.tmp1") {
		t.Fatalf(".vx/plugins holds %v", names)
	}
}
