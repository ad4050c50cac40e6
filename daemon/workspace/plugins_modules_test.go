package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPathPluginModuleEditAsksAgain: a path plugin's identity covers the
// modules its entry imports, so editing one asks the plugin again; a
// module beside it that it does not import, a file it keeps beside it
// (a cache) and one in node_modules or a hidden directory do not.
func TestPathPluginModuleEditAsksAgain(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"tools/ref.mjs":               referencePlugin(t) + "\nimport \"./lib.mjs\";\n",
		"tools/lib.mjs":               "export const x = 1\n",
		"tools/unused.mjs":            "export const y = 1\n",
		"tools/cache.json":            "1",
		"tools/node_modules/dep/x.js": "1",
		"tools/.cache/state.json":     "1",
	})
	time.Sleep(2100 * time.Millisecond) // every stamp out of the racy window
	mustLoad(t, root)
	asked := starts(t, root)
	mustLoad(t, root)
	if got := starts(t, root); got != asked {
		t.Fatalf("a warm load asked the plugin again: %q, then %q", asked, got)
	}
	for _, f := range []string{"tools/unused.mjs", "tools/cache.json", "tools/node_modules/dep/x.js", "tools/.cache/state.json"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("2"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustLoad(t, root)
	if got := starts(t, root); got != asked {
		t.Errorf("editing files beside the plugin that it does not import asked it again: %q, then %q", asked, got)
	}
	if err := os.WriteFile(filepath.Join(root, "tools/lib.mjs"), []byte("export const x = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, root)
	if got := starts(t, root); got == asked {
		t.Errorf("editing the module beside the plugin's entry did not ask it again (starts %q)", got)
	}
}
