package workspace_test

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// A dependsOn that names a project and drops it too ("b" and "!b") is
// refused, naming both, in either order: before, the later entry won, so
// the same two entries kept or dropped the dependency (and with it the
// order ^build ran in) by where a hand or a tool happened to put them.
func TestDependsOnNamingAndDroppingAProjectIsRefused(t *testing.T) {
	for _, deps := range []string{`["!b", "b"]`, `["b", "!b"]`} {
		t.Run(deps, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{
				"vx.workspace.json":   `{"projects": ["p/*"]}`,
				"p/a/package.json":    `{"name": "a", "dependencies": {"b": "workspace:*"}}`,
				"p/a/vx.project.json": `{"dependsOn": ` + deps + `}`,
				"p/b/package.json":    `{"name": "b"}`,
			})
			_, err := workspace.Load(root)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range []string{"vx.project.json", `"b"`, `"!b"`} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %s", err, w)
				}
			}
		})
	}
}
