package plugins_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// TestScopedEslintLintsOnlyInScope: laid out as TanStack/query is (a
// root flat config, packages with configs of their own, examples under
// the root config only), @vzn/vx-plugin-eslint gives every project a
// lint task; declared with "exclude": ["examples/**"], the examples get
// none and the packages keep theirs, as vx show and vx info say.
func TestScopedEslintLintsOnlyInScope(t *testing.T) {
	reach.Tool(t, "node", "the plugin is a Node script")
	for _, tc := range []struct {
		name, decl string
		want       map[string]string // lint task: the plugin and file it was inferred from
	}{
		{"unscoped", `"@vzn/vx-plugin-eslint"`, map[string]string{"a#lint": "eslint packages/a/eslint.config.js", "b#lint": "eslint packages/b/eslint.config.js",
			"basic#lint": "eslint eslint.config.js", "solid-basic#lint": "eslint eslint.config.js"}},
		{"scoped", `{"plugin": "@vzn/vx-plugin-eslint", "exclude": ["examples/**"]}`, map[string]string{"a#lint": "eslint packages/a/eslint.config.js", "b#lint": "eslint packages/b/eslint.config.js"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := harness.TempRoot(t)
			for rel, text := range map[string]string{
				"package.json":                       `{"name": "root", "private": true, "workspaces": ["packages/*", "examples/*/*"]}`,
				"vx.workspace.json":                  `{"plugins": [` + tc.decl + `]}`,
				"eslint.config.js":                   "export default [];\n",
				"packages/a/package.json":            `{"name": "a"}`,
				"packages/a/eslint.config.js":        "import root from '../../eslint.config.js';\nexport default [...root];\n",
				"packages/a/src/index.ts":            "export const a = 1;\n",
				"packages/b/package.json":            `{"name": "b"}`,
				"packages/b/eslint.config.js":        "import root from '../../eslint.config.js';\nexport default [...root];\n",
				"packages/b/src/index.ts":            "export const b = 1;\n",
				"examples/react/basic/package.json":  `{"name": "basic"}`,
				"examples/react/basic/src/index.tsx": "export const App = () => null;\n",
				"examples/solid/basic/package.json":  `{"name": "solid-basic"}`,
				"examples/solid/basic/src/index.tsx": "export const App = () => null;\n",
			} {
				harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
			}
			harness.CopyTree(t, filepath.Join(harness.ModuleRoot(), "npm", "vx-plugin-eslint"), filepath.Join(root, "node_modules", "@vzn", "vx-plugin-eslint"))
			checkSeams(t, root, nil, tc.want)
			r := harness.Run(t, root, nil, vxBin, "info", "--format", "json")
			var info struct {
				Plugins []struct {
					Exclude []string
					Tasks   int
					Error   string
				}
			}
			if err := json.Unmarshal([]byte(r.Stdout), &info); err != nil {
				t.Fatalf("vx info --format json: %v\n%s", err, r)
			}
			if len(info.Plugins) != 1 || info.Plugins[0].Tasks != len(tc.want) || info.Plugins[0].Error != "" ||
				(tc.name == "scoped") != slices.Equal(info.Plugins[0].Exclude, []string{"examples/**"}) {
				t.Errorf("vx info plugins: %+v", info.Plugins)
			}
		})
	}
}
