package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// TestAPluginNamingOneModuleByManyPathsIsRefused: relative imports that
// name one module by ever more paths (through links back to their own
// directory) are not modules of their own, so maxModules does not stop
// them; past maxImportPaths distinct paths the plugin is refused, saying
// what to do, rather than each vx command resolving them all. A plugin
// naming its module by a few paths, or by one path many times, resolves
// with that one module.
func TestAPluginNamingOneModuleByManyPathsIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		paths   int // distinct paths, by two links
		repeat  int // times each is written
		refused bool
	}{
		{"one path written many times", 1, 4 * maxImportPaths, false},
		{"a few paths", 8, 2, false},
		{"more paths than the bound", maxImportPaths + 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Write(t, root, map[string]string{"tools/p/a.mjs": "export const a = 1;\n"})
			for _, l := range []string{"l", "k"} {
				if err := os.Symlink(".", filepath.Join(root, "tools/p", l)); err != nil {
					t.Fatal(err)
				}
			}
			var entry strings.Builder
			for i := range tc.paths {
				// i in binary, with a leading 1, as links: l for 0, k for 1.
				p := strings.NewReplacer("0", "l/", "1", "k/").Replace(fmt.Sprintf("%b", i+1)[1:])
				for range tc.repeat {
					fmt.Fprintf(&entry, "import \"./%sa.mjs\";\n", p)
				}
			}
			testtree.Write(t, root, map[string]string{"tools/p/plugin.mjs": entry.String()})
			mods, err := importedModules(filepath.Join(root, "tools/p/plugin.mjs"), root)
			switch {
			case tc.refused && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d", maxImportPaths))):
				t.Fatalf("got %d modules, %v; want a refusal naming the bound", len(mods), err)
			case !tc.refused && err != nil:
				t.Fatalf("refused: %v", err)
			case !tc.refused && (len(mods) != 1 || filepath.Base(mods[0].Path) != "a.mjs"):
				t.Fatalf("got modules %+v, want a.mjs alone", mods)
			}
		})
	}
}
