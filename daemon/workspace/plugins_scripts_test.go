package workspace_test

import (
	"testing"
)

// scriptsPlugin infers "mirror" for each project from its build script,
// as its tasks request carries it, matching only vx-ref.json files: what
// it answers follows the scripts without a package.json among its files
// (a project with a vx-ref.json gets the task).
const scriptsPlugin = `import { readFileSync, appendFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
appendFileSync("starts.log", req.stage + "\n");
const out = (o) => process.stdout.write(JSON.stringify({ protocol: 1, ...o }));
if (req.stage === "describe") out({ name: "scripts", version: "1", stages: ["tasks"], globs: ["**/vx-ref.json"] });
else out({ tasks: req.projects.filter((p) => req.files.includes(p.root + "/vx-ref.json") && typeof p.scripts.build === "string")
  .map((p) => ({ project: p.name, name: "mirror", file: p.root + "/vx-ref.json", command: p.scripts.build + " " + Object.keys(p.scripts).join(",") })) });
`

// TestTasksRequestCarriesTheScripts: a tasks request gives each project
// its package.json scripts (an object in name order, {} for none), and
// a stored answer holds for them: an edited script asks the plugin again,
// an edit of package.json that leaves the scripts as they were does not.
func TestTasksRequestCarriesTheScripts(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json":       `{"plugins":["./tools/scripts.mjs"]}`,
		"tools/scripts.mjs":       scriptsPlugin,
		"packages/a/package.json": `{"name":"a","scripts":{"test":"t","build":"echo build a"}}`,
		"packages/b/vx-ref.json":  `{}`,
		"packages/c/package.json": `{"name":"c"}`,
		"packages/c/vx-ref.json":  `{}`,
	})
	m := mustLoad(t, root)
	if def, ok := m.Resolve("a", "mirror"); !ok || def.Command != "echo build a build,test" {
		t.Fatalf("a#mirror: %+v, %v; want the build script and the names in order (plugins %+v)", def, ok, m.Plugins())
	}
	if _, ok := m.Resolve("c", "mirror"); ok {
		t.Fatal("c, with no scripts, has a mirror task")
	}
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks" {
		t.Fatalf("cold and warm loads started %q", got)
	}
	writeTree(t, root, map[string]string{"packages/a/package.json": `{"name":"a","version":"2.0.0","scripts":{"test":"t","build":"echo build a"}}`})
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks" {
		t.Fatalf("a version bump started %q", got)
	}
	writeTree(t, root, map[string]string{"packages/b/package.json": `{"name":"b","scripts":{"build":"echo build b2"}}`})
	m = mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks" {
		t.Fatalf("an edited script started %q", got)
	}
	if def, ok := m.Resolve("b", "mirror"); !ok || def.Command != "echo build b2 build" {
		t.Fatalf("b#mirror after its script changed: %+v, %v", def, ok)
	}
}
