package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptPlugin is a Node plugin answering describe with describe and
// tasks with tasks (JavaScript expressions; req is the request).
func scriptPlugin(describe, tasks string) string {
	return `const req = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = (o) => process.stdout.write(JSON.stringify(o));
if (req.stage === "describe") out(` + describe + `);
else out(` + tasks + `);
`
}

// TestAFailedPluginIsSaid: a plugin that fails is said in a line of its
// own (PluginWarnings, which vx run, vx show and vx doctor print), and a
// task it would infer, asked for, is unknown with the failed plugin named.
func TestAFailedPluginIsSaid(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/bad.cjs"]}`,
		"tools/bad.cjs":     `process.stderr.write("line one\nline two\n"); process.exit(3);`,
	})
	m := mustLoad(t, root)
	w := m.PluginWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "plugin ./tools/bad.cjs") || !strings.Contains(w[0], "exited with exit status 3") ||
		!strings.Contains(w[0], "left out") || !strings.Contains(w[0], "vx info shows the whole error") || strings.Contains(w[0], "\n") {
		t.Fatalf("warnings: %q", w)
	}
	_, err := m.Build([]string{"lint"}, m.Projects, false)
	if err == nil || !strings.Contains(err.Error(), `unknown task "lint"`) || !strings.Contains(err.Error(), "plugin ./tools/bad.cjs failed to load") {
		t.Fatalf("Build: %v", err)
	}
}

// TestInferredTasksErrorsNameTheirPlugin: a dependsOn of an inferred task
// naming no task, and a cycle through inferred tasks, name the plugin and
// the file each was inferred from.
func TestInferredTasksErrorsNameTheirPlugin(t *testing.T) {
	needNode(t)
	describe := `{protocol:1,name:"dep",version:"1",stages:["tasks"],globs:["**/vx-ref.json"]}`
	cases := map[string]struct{ tasks, run, want string }{
		"unknown dependsOn": {`{protocol:1,tasks:[{project:"a",name:"t",file:"packages/a/vx-ref.json",command:"x",dependsOn:["nosuch"]}]}`, "t",
			`task a#t (inferred by plugin dep from packages/a/vx-ref.json): dependsOn "nosuch"`},
		"cycle": {`{protocol:1,tasks:[{project:"a",name:"x",file:"packages/a/vx-ref.json",command:"x",dependsOn:["y"]},{project:"a",name:"y",file:"packages/a/vx-ref.json",command:"y",dependsOn:["x"]}]}`, "x",
			"a#x is inferred by plugin dep from packages/a/vx-ref.json; a#y is inferred by plugin dep from packages/a/vx-ref.json"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := pluginTree(t, map[string]string{
				"vx.workspace.json": `{"plugins":["./tools/dep.cjs"]}`,
				"tools/dep.cjs":     scriptPlugin(describe, c.tasks),
			})
			m := mustLoad(t, root)
			if w := m.PluginWarnings(); len(w) != 0 {
				t.Fatalf("warnings: %q", w)
			}
			_, err := m.Build([]string{c.run}, m.Projects, false)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Build: %v\nwant it to hold %q", err, c.want)
			}
		})
	}
}

// TestPluginsOfOneNameAreToldApart: two declarations of plugins with the
// same name (two copies of one plugin) each infer a task of their own,
// whose origin is the declaration; a task both infer is kept from the
// first, and the second's state says so.
func TestPluginsOfOneNameAreToldApart(t *testing.T) {
	needNode(t)
	describe := `{protocol:1,name:"same",version:"1",stages:["tasks"],globs:["**/vx-ref.json"]}`
	task := func(name string) string {
		return `{protocol:1,tasks:[{project:"a",name:"` + name + `",file:"packages/a/vx-ref.json",command:"x"},{project:"a",name:"both",file:"packages/a/vx-ref.json",command:"x"}]}`
	}
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/one.cjs","./tools/two.cjs"]}`,
		"tools/one.cjs":     scriptPlugin(describe, task("one")),
		"tools/two.cjs":     scriptPlugin(describe, task("two")),
	})
	m := mustLoad(t, root)
	for task, want := range map[string]string{"one": "./tools/one.cjs", "two": "./tools/two.cjs", "both": "./tools/one.cjs"} {
		if o, ok := m.Inferred("a", task); !ok || o.Plugin != want {
			t.Errorf("a#%s: origin %+v, want plugin %s", task, o, want)
		}
	}
	ps := m.Plugins()
	if len(ps) != 2 || ps[1].Tasks != 1 || !strings.Contains(ps[1].Error, "a#both (kept ./tools/one.cjs's)") {
		t.Fatalf("plugins: %+v", ps)
	}
	// Loaded, part of its answer refused: vx info's to say, not every
	// command's.
	if w := m.PluginWarnings(); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
}

// TestAnAnswerHoldingASecretIsNotStored: a tasks answer holding a value
// the workspace declares secret is used but not written to .vx/plugins
// (vx stores no secret in clear); the plugin's state says why it is asked
// every load.
func TestAnAnswerHoldingASecretIsNotStored(t *testing.T) {
	needNode(t)
	const secret = "s3cr3t-Tok3n-42-value"
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/sec.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`,
		"tools/sec.cjs": scriptPlugin(`{protocol:1,name:"sec",version:"1",stages:["tasks"],globs:["**/vx-ref.json"]}`,
			`{protocol:1,tasks:[{project:"a",name:"t",file:"packages/a/vx-ref.json",command:"curl -H 'token: `+secret+`' x"}]}`),
	})
	for load := 1; load <= 2; load++ {
		m := mustLoad(t, root)
		if def, ok := m.Resolve("a", "t"); !ok || !strings.Contains(def.Command, secret) {
			t.Fatalf("load %d: the inferred task: %+v", load, def)
		}
		ps := m.Plugins()
		if len(ps) != 1 || !strings.Contains(ps[0].Error, "holds a value declared secret") || ps[0].Started == 0 {
			t.Fatalf("load %d: plugins: %+v", load, ps)
		}
	}
	stores, _ := filepath.Glob(filepath.Join(root, ".vx", "plugins", "*"))
	for _, f := range stores {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), secret) {
			t.Fatalf("%s holds the secret in clear", f)
		}
	}
}

// TestAPluginFailingAtItsTasksKeepsItsDescription: a plugin whose tasks
// stage fails after a good describe answer is still known by its name,
// stages and globs (vx info shows them; vxd's watch asks it again when a
// matched file changes), while its tasks and verbs are left out.
func TestAPluginFailingAtItsTasksKeepsItsDescription(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/half.cjs"]}`,
		"tools/half.cjs": scriptPlugin(`{protocol:1,name:"half",version:"2",stages:["tasks","commands"],globs:["**/vx-ref.json"],commands:[{name:"half-verb",summary:"s"}]}`,
			`"not json"`),
	})
	m := mustLoad(t, root)
	ps := m.Plugins()
	if len(ps) != 1 || ps[0].Name != "half" || ps[0].Version != "2" || strings.Join(ps[0].Stages, ",") != "tasks,commands" || len(ps[0].Commands) != 0 || ps[0].Tasks != 0 {
		t.Fatalf("plugins: %+v", ps)
	}
	if !strings.Contains(ps[0].Error, "tasks: its answer is not one JSON object") {
		t.Fatalf("error: %q", ps[0].Error)
	}
	if !m.PluginMatches("packages/a/vx-ref.json") {
		t.Fatal("a matched file of the failed plugin is not one its change would ask again")
	}
	if _, _, ok := m.PluginCommand("half-verb"); ok {
		t.Fatal("the failed plugin's verb was added")
	}
}
