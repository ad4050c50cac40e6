package workspace_test

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// A project whose name starts with "!" (a directory "!x" with no
// package.json name, or a vx.project.json "name") is refused, naming
// it: dependsOn "!x" drops project x and --filter '!x' leaves x out, so
// such a project could be neither depended on nor selected, and a
// dependsOn naming it changed meaning. (npm refuses "!" in a name.)
func TestProjectNameStartingWithBangIsRefused(t *testing.T) {
	for name, tree := range map[string]map[string]string{
		"directory": {
			"vx.workspace.json":    `{"projects": ["p/*"]}`,
			"p/!x/vx.project.json": `{}`,
			"p/a/package.json":     `{"name": "a"}`,
		},
		"vx.project.json name": {
			"vx.workspace.json":   `{"projects": ["p/*"]}`,
			"p/x/package.json":    `{"name": "x"}`,
			"p/x/vx.project.json": `{"name": "!x"}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tree)
			_, err := workspace.Load(root)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range []string{`"!x"`, "p/"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %s", err, w)
				}
			}
		})
	}
}
