package workspace_test

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// A "!name" in vx.project.json dependsOn drops a dependency package.json
// names, as Nx's implicitDependencies "!name" does: typescript-eslint's
// ast-spec lists typescript-estree in devDependencies (its tests use it)
// and drops it so, since typescript-estree depends on ast-spec through
// types; without the drop the workspace is a cycle and does not load.
func TestDependsOnBangDropsAPackageJSONDependency(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json":       `{"projects": ["p/*"]}`,
		"p/spec/package.json":     `{"name": "spec", "devDependencies": {"estree": "workspace:*", "keys": "workspace:*"}}`,
		"p/spec/vx.project.json":  `{"dependsOn": ["!estree"]}`,
		"p/estree/package.json":   `{"name": "estree", "dependencies": {"types": "workspace:*"}}`,
		"p/types/package.json":    `{"name": "types"}`,
		"p/types/vx.project.json": `{"dependsOn": ["spec"]}`,
		"p/keys/package.json":     `{"name": "keys"}`,
	})
	for _, tc := range []struct {
		project string
		deps    []string
	}{
		{"spec", []string{"keys"}},
		{"types", []string{"spec"}},
		{"estree", []string{"types"}},
	} {
		p, ok := m.Project(tc.project)
		if !ok {
			t.Fatalf("no project %q", tc.project)
		}
		if !eq(p.Deps, tc.deps) {
			t.Errorf("%s deps = %v, want %v", tc.project, p.Deps, tc.deps)
		}
	}
	estree, _ := m.Project("estree")
	for _, d := range estree.Dependents {
		if d == "spec" {
			t.Errorf("estree's dependents hold spec after its drop: %v", estree.Dependents)
		}
	}
}

// A "!name" naming no project is refused like a dependsOn naming none,
// with close names: a typo would otherwise drop nothing, silently.
func TestDependsOnBangNamingNoProjectIsRefused(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"vx.workspace.json":      `{"projects": ["p/*"]}`,
		"p/spec/package.json":    `{"name": "spec", "devDependencies": {"estree": "workspace:*"}}`,
		"p/spec/vx.project.json": `{"dependsOn": ["!estre"]}`,
		"p/estree/package.json":  `{"name": "estree"}`,
	})
	_, err := workspace.Load(root)
	if err == nil {
		t.Fatal("Load succeeded, want an error")
	}
	for _, w := range []string{"vx.project.json", `"!estre"`, "estree"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}
