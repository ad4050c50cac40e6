package workspace_test

import (
	"testing"
)

// TestRunOverlapsCoverEveryPairedTask: a run of any one task that is in a
// pair of the workspace's gets every pair (its lock group), however the
// outputs are set: workspace task defaults, project#task, vx.project.json
// overrides, a plugin-free command override, braces, globs and negations.
func TestRunOverlapsCoverEveryPairedTask(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{"projects": ["pkgs/*"], "tasks": {
			"build": {"outputs": ["dist/{esm,cjs}/**", "!dist/**/*.map"]},
			"types": {"outputs": ["dist/esm/index.d.ts"]},
			"docs": {"outputs": ["!docs/**", "site/*.html"]},
			"b#docs": {"outputs": ["dist/cjs"]},
			"gen": {"command": "gen", "outputs": ["gen/[ab]*.ts"]},
			"gen2": {"command": "gen2", "outputs": ["gen/a.ts"]},
			"quiet": {"command": "", "outputs": ["dist/**"]}
		}}`,
		"pkgs/a/package.json":    `{"name": "a", "scripts": {"build": "x", "types": "x", "docs": "x"}}`,
		"pkgs/a/vx.project.json": `{"tasks": {"types": {"outputs": ["lib/**"]}}}`,
		"pkgs/b/package.json":    `{"name": "b", "scripts": {"build": "x", "types": "x", "docs": "x"}}`,
		"pkgs/c/package.json":    `{"name": "c", "scripts": {"build": "x", "lint": "x"}}`,
		"pkgs/c/vx.project.json": `{"tasks": {"lint": {"outputs": ["dist/cjs/lint.txt"]}}}`,
	})
	all := m.OutputOverlaps()
	paired := map[string]bool{}
	for _, o := range all {
		paired[o.Tasks[0]], paired[o.Tasks[1]] = true, true
	}
	for _, id := range []string{"a#gen", "b#build", "c#build", "b#types", "b#docs", "c#lint"} {
		if !paired[id] {
			t.Errorf("%s is in no pair: %+v", id, all)
		}
	}
	for _, p := range m.Projects {
		for _, name := range m.TaskNames() {
			if _, ok := m.Resolve(p.Name, name); !ok {
				continue
			}
			id := p.Name + "#" + name
			g, err := m.Build([]string{id}, nil, false)
			if err != nil {
				continue
			}
			if got := m.RunOverlaps(g); paired[id] && len(got) != len(all) {
				t.Errorf("a run of %s gets %d pairs, the workspace has %d: %+v", id, len(got), len(all), all)
			}
		}
	}
}
