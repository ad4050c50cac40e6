package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/mcpserver"
)

// verbPlugin declares the verb "mut" (readOnly as given, with a schema)
// and, asked to run it, appends to ran.log.
func verbPlugin(readOnly bool) string {
	ro := "false"
	if readOnly {
		ro = "true"
	}
	return `const fs = require("fs"); const req = JSON.parse(fs.readFileSync(0, "utf8"));
if (req.stage === "describe") { process.stdout.write(JSON.stringify({protocol:1,name:"mut",version:"1",stages:["commands"],
  commands:[{name:"mut",summary:"changes things",readOnly:` + ro + `,inputSchema:{type:"object",properties:{}}}]})); process.exit(0); }
fs.appendFileSync("ran.log", "ran\n");
process.stdout.write(JSON.stringify({protocol:1,output:"done"}));`
}

// TestPluginToolRunsOnlyAReadOnlyVerb: a tool served for a verb declared
// readOnly does not run the verb once the plugin no longer declares it so
// (the model reloaded before the catalog): MCP never runs a verb that is
// not read-only.
func TestPluginToolRunsOnlyAReadOnlyVerb(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: the plugin tests run Node plugins")
	}
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":       `{"projects":["packages/*"],"plugins":["./tools/mut.cjs"]}`,
		"packages/a/package.json": `{"name":"a"}`,
		"tools/mut.cjs":           verbPlugin(true),
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	e := ops.NewEnv(root, m, nil, []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(e.Close)
	served := PluginTools(e, nil)
	if len(served) != 1 || served[0].Def.Name != "mut" {
		t.Fatalf("tools: %+v", served)
	}
	testtree.Write(t, root, map[string]string{"tools/mut.cjs": verbPlugin(false)})
	m2, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	e.SetModel(m2, nil)
	if _, err := served[0].Handler(context.Background(), &mcpserver.Call{Name: "mut", Arguments: json.RawMessage(`{}`)}); err == nil {
		t.Error("the tool ran a verb that is no longer read-only")
	}
	if _, err := os.Stat(filepath.Join(root, "ran.log")); err == nil {
		t.Error("the plugin ran the verb")
	}
}
