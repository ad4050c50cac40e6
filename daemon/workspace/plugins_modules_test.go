package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPathPluginModuleEditAsksAgain: a path plugin's identity covers the
// other modules of its directory (what its entry may import), so editing
// one asks the plugin again; a file beside it in node_modules or a hidden
// directory does not.
func TestPathPluginModuleEditAsksAgain(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"tools/lib.mjs":               "export const x = 1\n",
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
	for _, f := range []string{"tools/node_modules/dep/x.js", "tools/.cache/state.json"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("2"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustLoad(t, root)
	if got := starts(t, root); got != asked {
		t.Errorf("editing files in node_modules and a hidden directory beside the plugin asked it again: %q, then %q", asked, got)
	}
	if err := os.WriteFile(filepath.Join(root, "tools/lib.mjs"), []byte("export const x = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, root)
	if got := starts(t, root); got == asked {
		t.Errorf("editing the module beside the plugin's entry did not ask it again (starts %q)", got)
	}
}
