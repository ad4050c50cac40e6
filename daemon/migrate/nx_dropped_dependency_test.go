package migrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
)

// TestNxImplicitDependencyDropCarriedOver: Nx's implicitDependencies
// "!name" drops a dependency package.json names; vx init writes it as
// dependsOn "!name", so a workspace such as typescript-eslint's (ast-spec
// lists typescript-estree in devDependencies and drops it, since
// typescript-estree depends on ast-spec) loads, rather than being refused
// as a cycle, and the dependency is gone as in Nx's graph.
func TestNxImplicitDependencyDropCarriedOver(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"package.json":                 `{"name": "repo", "private": true, "workspaces": ["packages/*"], "devDependencies": {"nx": "22.7.6"}}`,
		"nx.json":                      `{}`,
		"packages/spec/package.json":   `{"name": "@x/spec", "scripts": {"build": "tsc -b"}, "devDependencies": {"@x/estree": "workspace:*"}}`,
		"packages/spec/project.json":   `{"name": "spec", "implicitDependencies": ["!estree"]}`,
		"packages/estree/package.json": `{"name": "@x/estree", "scripts": {"build": "tsc -b"}, "dependencies": {"@x/spec": "workspace:*"}}`,
		"packages/estree/project.json": `{"name": "estree"}`,
	})
	p, err := PlanInit(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range p.Todos {
		if strings.Contains(td.Reason, "implicitDependencies") {
			t.Errorf("todo %q: the drop is carried over, nothing is left to do", td.Reason)
		}
	}
	if _, err := Apply(p, dir, nil); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(dir)
	if err != nil {
		t.Fatalf("loading the written config: %v\n%s", err, fileText(t, p, "packages/spec/vx.project.json"))
	}
	spec, _ := m.Project("@x/spec")
	if len(spec.Deps) != 0 {
		t.Errorf("@x/spec depends on %v, want nothing (Nx dropped @x/estree)", spec.Deps)
	}
	estree, _ := m.Project("@x/estree")
	if !slices.Equal(estree.Deps, []string{"@x/spec"}) {
		t.Errorf("@x/estree depends on %v, want [@x/spec]", estree.Deps)
	}
}

// TestNxImplicitDependencyNamedAndDroppedTakesTheLater: Nx applies
// implicitDependencies in order, so of "name" and "!name" in one list the
// later holds; vx init writes that one alone, since vx refuses a dependsOn
// holding both (before, it wrote both and the workspace did not load).
func TestNxImplicitDependencyNamedAndDroppedTakesTheLater(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
	}{
		{`["keys", "!keys"]`, nil},
		{`["!keys", "keys"]`, []string{"@x/keys"}},
	} {
		t.Run(tc.list, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Write(t, dir, map[string]string{
				"package.json":               `{"name": "repo", "private": true, "workspaces": ["packages/*"], "devDependencies": {"nx": "22.7.6"}}`,
				"nx.json":                    `{}`,
				"packages/spec/package.json": `{"name": "@x/spec", "scripts": {"build": "tsc -b"}, "devDependencies": {"@x/keys": "workspace:*"}}`,
				"packages/spec/project.json": `{"name": "spec", "implicitDependencies": ` + tc.list + `}`,
				"packages/keys/package.json": `{"name": "@x/keys", "scripts": {"build": "tsc -b"}}`,
				"packages/keys/project.json": `{"name": "keys"}`,
			})
			p, err := PlanInit(t.Context(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := applyAndLoad(t, p, dir).Project("@x/spec")
			if !slices.Equal(spec.Deps, tc.want) {
				t.Errorf("@x/spec depends on %v, want %v", spec.Deps, tc.want)
			}
		})
	}
}
