package server

import (
	"path/filepath"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// cjsGenPlugin is genPlugin as CommonJS, its names required from
// "./lib": Node finds lib.js before lib.json.
const cjsGenPlugin = `const { readFileSync } = require("node:fs");
const { names } = require("./lib");
const req = JSON.parse(readFileSync(0, "utf8"));
const answer = (o) => process.stdout.write(JSON.stringify({ protocol: 1, ...o }));
if (req.stage === "describe") answer({ name: "gen", version: "1.0.0", stages: ["tasks"], globs: ["apps/*/package.json"] });
else answer({ tasks: names.map((n) => ({ project: "web", name: n, file: req.files[0], command: "true" })) });
`

// TestReloadWhenAFileAnImportFindsFirstIsMade: a plugin requiring
// "./lib", found as lib.json, runs lib.js once one is made; vxd reloads
// on its making and serves the tasks the plugin then infers.
func TestReloadWhenAFileAnImportFindsFirstIsMade(t *testing.T) {
	needNode(t)
	root := newWorkspace(t, `{"projects": ["apps/*"], "plugins": ["./tools/gen/plugin.cjs"]}`)
	testtree.Write(t, root, map[string]string{"tools/gen/plugin.cjs": cjsGenPlugin, "tools/gen/lib.json": `{"names": ["gen-a"]}`})
	r := serve(t, root, -1)
	before := r.status(t)
	if before.LastReload == nil || !before.LastReload.OK || len(before.LastReload.PluginsFailed) > 0 {
		t.Fatalf("the workspace did not load: %+v, %q", before.LastReload, before.ConfigError)
	}
	testtree.Write(t, root, map[string]string{"tools/gen/lib.js": `module.exports = { names: ["gen-a", "gen-b"] };`})
	awaitReload(t, r, filepath.FromSlash("tools/gen/lib.js"), before.Tasks+1)
}
