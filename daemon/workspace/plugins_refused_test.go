package workspace_test

import (
	"strings"
	"testing"
)

// describeOK is a describe answer offering tasks over vx-ref.json files.
const describeOK = `if (req.stage === "describe") { out({protocol:1,name:"bad",version:"0",stages:["tasks"],globs:["**/vx-ref.json"]}); process.exit(0); }`

// badPlugin is a Node plugin whose tasks stage does body.
func badPlugin(body string) string {
	return `const req = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = (o) => process.stdout.write(JSON.stringify(o));
` + describeOK + "\n" + body + "\n"
}

// TestBadPluginsAreRefusedAndTheRestLoads: each misbehaving plugin is
// refused with the plugin, the file and the reason named; the workspace
// loads without its tasks.
func TestBadPluginsAreRefusedAndTheRestLoads(t *testing.T) {
	needNode(t)
	cases := []struct {
		name, decl, script string
		want               []string
	}{
		{"crash", `"./tools/bad.cjs"`, badPlugin(`process.stderr.write("boom at line 3\n"); process.exit(3);`),
			[]string{"plugin ./tools/bad.cjs", "vx.workspace.json", "exited with exit status 3", "boom at line 3"}},
		{"hang", `{"plugin":"./tools/bad.cjs","timeout":"1s"}`, badPlugin(`setInterval(() => {}, 1000);`),
			[]string{"plugin ./tools/bad.cjs", "no answer within 1s"}},
		{"garbage", `"./tools/bad.cjs"`, badPlugin(`process.stdout.write("hello, vx");`),
			[]string{"plugin ./tools/bad.cjs", "not one JSON object", "hello, vx"}},
		{"unknown field", `"./tools/bad.cjs"`, badPlugin(`out({protocol:1,tasks:[{project:"a",name:"ref",file:"packages/a/vx-ref.json",command:"x",outputz:["o"]}]});`),
			[]string{"plugin ./tools/bad.cjs", `unknown field "outputz"`}},
		{"output outside", `"./tools/bad.cjs"`, badPlugin(`out({protocol:1,tasks:[{project:"a",name:"ref",file:"packages/a/vx-ref.json",command:"x",outputs:["../../../etc/**"]}]});`),
			[]string{"plugin ./tools/bad.cjs (packages/a/vx-ref.json)", `outputs "../../../etc/**" is outside the workspace`}},
		{"another protocol", `"./tools/bad.cjs"`, badPlugin(`out({protocol:2,tasks:[]});`),
			[]string{"answers protocol 2; this vx speaks protocol 1"}},
		{"50 MB answer", `"./tools/bad.cjs"`, badPlugin(`process.stdout.write("x".repeat(50 << 20));`),
			[]string{"plugin ./tools/bad.cjs", "answer is longer than 4194304 bytes"}},
		{"entry outside", `"../outside.mjs"`, "",
			[]string{"plugin ../outside.mjs", "outside"}},
		{"package not installed", `"@vzn/vx-plugin-nothing"`, "",
			[]string{"plugin @vzn/vx-plugin-nothing", "not installed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := pluginTree(t, map[string]string{
				"vx.workspace.json": `{"plugins":[` + c.decl + `]}`,
				"tools/bad.cjs":     c.script,
			})
			m := mustLoad(t, root)
			ps := m.Plugins()
			if len(ps) != 1 || ps[0].Tasks != 0 {
				t.Fatalf("plugins: %+v", ps)
			}
			for _, w := range c.want {
				if !strings.Contains(ps[0].Error, w) {
					t.Errorf("error lacks %q:\n%s", w, ps[0].Error)
				}
			}
			if _, ok := m.Resolve("a", "ref"); ok {
				t.Error("a refused plugin's task is in the model")
			}
			if def, ok := m.Resolve("a", "build"); !ok || def.Command != "echo build a" {
				t.Errorf("the rest of the workspace did not load: %+v", def)
			}
		})
	}
}

// TestPluginStderrIsMasked: a secret value the workspace declares never
// appears in a plugin's error, stderr included.
func TestPluginStderrIsMasked(t *testing.T) {
	needNode(t)
	const secret = "hunter2-very-secret-value"
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/bad.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`,
		"tools/bad.cjs":     badPlugin(`process.stderr.write("using token ` + secret + `\n"); out({protocol:1,tasks:[{project:"nope",name:"t",file:"f"}], x: "` + secret + `"});`),
	})
	ps := mustLoad(t, root).Plugins()
	if len(ps) != 1 || ps[0].Error == "" {
		t.Fatalf("plugins: %+v", ps)
	}
	if strings.Contains(ps[0].Error, secret) {
		t.Fatalf("the secret leaked:\n%s", ps[0].Error)
	}
	if !strings.Contains(ps[0].Error, "using token") {
		t.Fatalf("stderr not shown:\n%s", ps[0].Error)
	}
}

// TestPluginStdoutIsMasked: a plugin that logs to stdout (not one JSON
// object) is refused quoting the start of what it wrote, and a secret
// value in it is masked whole, even where the quote cuts through it.
func TestPluginStdoutIsMasked(t *testing.T) {
	needNode(t)
	const secret = "hunter2-very-secret-value"
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/bad.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`,
		"tools/bad.cjs":     badPlugin(`process.stdout.write("Using API token ` + secret + ` to look things up\n");`),
	})
	ps := mustLoad(t, root).Plugins()
	if len(ps) != 1 || !strings.Contains(ps[0].Error, "Using API token") {
		t.Fatalf("plugins: %+v", ps)
	}
	if strings.Contains(ps[0].Error, secret[:8]) {
		t.Fatalf("the secret leaked:\n%s", ps[0].Error)
	}
}

// TestPluginStderrTailIsMasked: the tail of a long stderr kept for the
// error is masked before it is cut: a secret the cut goes through does
// not show in part.
func TestPluginStderrTailIsMasked(t *testing.T) {
	needNode(t)
	const secret = "hunter2-very-secret-value"
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/bad.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`,
		// The kept tail (16 KiB) starts 10 bytes into the secret.
		"tools/bad.cjs": badPlugin(`process.stderr.write("token ` + secret + `" + ".".repeat(16384 - 15)); process.exit(3);`),
	})
	ps := mustLoad(t, root).Plugins()
	if len(ps) != 1 || !strings.Contains(ps[0].Error, "exit status 3") {
		t.Fatalf("plugins: %+v", ps)
	}
	if strings.Contains(ps[0].Error, secret[10:]) {
		t.Fatalf("part of the secret shows: %q", ps[0].Error[:200])
	}
}
