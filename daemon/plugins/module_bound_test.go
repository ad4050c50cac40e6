package plugins

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// TestAPluginImportingTooManyModulesIsRefused: a plugin whose entry
// imports maxModules modules resolves; one more is refused, saying how
// many and what to do, and so is one importing past maxModuleBytes.
func TestAPluginImportingTooManyModulesIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		modules int
		size    int
		refused string
	}{
		{"at the bound", maxModules, 1, ""},
		{"one module past it", maxModules + 1, 1, "more than 256 modules"},
		{"past its bytes", 2, maxModuleBytes/2 + 1, "past the 8 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{}
			var entry strings.Builder
			for i := range tc.modules {
				fmt.Fprintf(&entry, "import \"./m/%d.mjs\";\n", i)
				files[fmt.Sprintf("tools/p/m/%d.mjs", i)] = strings.Repeat("x", tc.size)
			}
			files["tools/p/plugin.mjs"] = entry.String()
			testtree.Write(t, root, files)
			_, err := resolve(root, Decl{Spec: "./tools/p/plugin.mjs", File: filepath.Join(root, "vx.workspace.json")})
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("got %v, want a refusal saying %q", err, tc.refused)
			}
		})
	}
}
