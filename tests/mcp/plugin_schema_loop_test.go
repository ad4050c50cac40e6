//go:build !windows

package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAPluginToolWhoseSchemaLoopsLeavesVXDUp: a plugin's read-only verb
// whose inputSchema's $refs loop on one value is refused at describe (vx
// info says why), so no tool checks arguments against it: a call of it
// once overflowed vxd's stack, a fatal error that ended vxd for every
// client. vxd still answers after the call.
func TestAPluginToolWhoseSchemaLoopsLeavesVXDUp(t *testing.T) {
	root := pluginWorkspace(t)
	loop := `require("fs").readFileSync(0, "utf8");
process.stdout.write(JSON.stringify({protocol:1,name:"loop",version:"1",stages:["commands"],
  commands:[{name:"loopy",summary:"s",readOnly:true,inputSchema:{type:"object",
    $defs:{x:{$ref:"#/$defs/y"},y:{$ref:"#/$defs/x"}},properties:{a:{$ref:"#/$defs/x"}}}}]}));
`
	if err := os.WriteFile(filepath.Join(root, "tools", "loop.cjs"), []byte(loop), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `{"projects":["packages/*"],"plugins":[{"plugin":"./tools/ref.mjs","options":{"log":"starts.log"}},"./tools/loop.cjs"]}`
	if err := os.WriteFile(filepath.Join(root, "vx.workspace.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "loopy", Arguments: map[string]any{"a": 1}})
	if err == nil && !res.IsError {
		t.Fatalf("the looping schema's tool answered: %+v", res)
	}
	if r := run(t, root, nil, vxdBin, "status"); r.Code != 0 || !strings.Contains(r.Stdout, "1 plugin failed") {
		t.Fatalf("vxd after the call (down, or the plugin not said failed)\n%s", r)
	}
	a := callOK(t, cs, "tasks-of", map[string]any{"project": "a"})
	if !strings.Contains(a.text, "a#ref") {
		t.Fatalf("tasks-of after the call: %s", a.text)
	}
}

// TestAPluginToolRefusesANestedArgumentAndStaysUp: a plugin's read-only
// verb whose inputSchema describes a tree ("$ref": "#" under a property)
// refuses a bad argument deep in the tree with its path, and vxd answers
// after it: explaining that refusal once overflowed vxd's stack.
func TestAPluginToolRefusesANestedArgumentAndStaysUp(t *testing.T) {
	root := pluginWorkspace(t)
	tree := `require("fs").readFileSync(0, "utf8");
process.stdout.write(JSON.stringify({protocol:1,name:"tree",version:"1",stages:["commands"],
  commands:[{name:"tree",summary:"s",readOnly:true,inputSchema:{type:"object",
    properties:{kid:{$ref:"#"},n:{type:"integer",maximum:3}},additionalProperties:false}}]}));
`
	if err := os.WriteFile(filepath.Join(root, "tools", "tree.cjs"), []byte(tree), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `{"projects":["packages/*"],"plugins":[{"plugin":"./tools/ref.mjs","options":{"log":"starts.log"}},"./tools/tree.cjs"]}`
	if err := os.WriteFile(filepath.Join(root, "vx.workspace.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	a := call(t, cs, "tree", map[string]any{"kid": map[string]any{"kid": map[string]any{"n": 9}}})
	if !a.res.IsError || !strings.Contains(a.text, `"kid.kid.n"`) || !strings.Contains(a.text, "maximum 3") {
		t.Fatalf("the nested bad argument: %s", a.text)
	}
	if r := run(t, root, nil, vxdBin, "status"); r.Code != 0 {
		t.Fatalf("vxd after the call\n%s", r)
	}
}
