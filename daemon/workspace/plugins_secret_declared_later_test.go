package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAStoreHoldingASecretDeclaredLaterIsRemoved: answers stored while a
// value was not declared secret (or by a vx that stored secrets) are not
// left in clear in .vx/plugins once the value is declared secret: the
// store's key (the plugin, its options, the matched files) does not
// change, so the store must be judged against the secrets when read.
func TestAStoreHoldingASecretDeclaredLaterIsRemoved(t *testing.T) {
	needNode(t)
	const secret = "s3cr3t-Tok3n-42-value"
	plugin := scriptPlugin(`{protocol:1,name:"sec",version:"1",stages:["tasks"],globs:["**/vx-ref.json"]}`,
		`{protocol:1,tasks:[{project:"a",name:"t",file:"packages/a/vx-ref.json",command:"curl -H 'token: `+secret+`' x"}]}`)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":["./tools/sec.cjs"]}`,
		"tools/sec.cjs":     plugin,
	})
	mustLoad(t, root) // not secret yet: stored
	stores, _ := filepath.Glob(filepath.Join(root, ".vx", "plugins", "*"))
	if len(stores) != 1 {
		t.Fatalf("stores: %v", stores)
	}
	if b, _ := os.ReadFile(stores[0]); !strings.Contains(string(b), secret) {
		t.Fatalf("the answer was not stored: %s", b)
	}
	cfg := `{"plugins":["./tools/sec.cjs"],"tasks":{"deploy":{"command":"x","exec":{"env":{"TOKEN":{"value":"` + secret + `","secret":true}}}}}}`
	if err := os.WriteFile(filepath.Join(root, "vx.workspace.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustLoad(t, root)
	if def, ok := m.Resolve("a", "t"); !ok || !strings.Contains(def.Command, secret) {
		t.Fatalf("the inferred task: %+v", def)
	}
	stores, _ = filepath.Glob(filepath.Join(root, ".vx", "plugins", "*"))
	for _, f := range stores {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), secret) {
			t.Fatalf("%s holds the secret in clear after it was declared secret", f)
		}
	}
}
