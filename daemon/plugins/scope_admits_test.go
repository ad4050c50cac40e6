package plugins

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestScopeAdmitsAsNxDoes: include and exclude are tested against a
// matched file's workspace-relative path as Nx tests a createNodes
// config file: an empty include admits every path, exclude takes out
// what it matches, and a glob starting with "!" takes back what the
// globs before it in its list matched (the last match decides).
func TestScopeAdmitsAsNxDoes(t *testing.T) {
	tests := []struct {
		name  string
		scope Scope
		in    []string
		out   []string
	}{
		{"empty", Scope{}, []string{"a.json", "examples/x/a.json"}, nil},
		{"include", Scope{Include: []string{"packages/**"}}, []string{"packages/a/eslint.config.js", "packages/a/b/c.js"}, []string{"eslint.config.js", "examples/react/eslint.config.js"}},
		{"exclude", Scope{Exclude: []string{"examples/**/*"}}, []string{"eslint.config.js", "packages/a/x.js"}, []string{"examples/react/basic/eslint.config.js"}},
		{"both", Scope{Include: []string{"packages/**"}, Exclude: []string{"packages/**/__fixtures__/**/*"}}, []string{"packages/a/x.js"}, []string{"packages/a/__fixtures__/p/x.js", "apps/x.js"}},
		{"negation in include", Scope{Include: []string{"packages/**", "!packages/legacy/**"}}, []string{"packages/a/x.js"}, []string{"packages/legacy/x.js", "apps/x.js"}},
		{"leading negation starts from all", Scope{Include: []string{"!examples/**"}}, []string{"packages/a/x.js", "x.js"}, []string{"examples/a/x.js"}},
		{"negation in exclude takes one back", Scope{Exclude: []string{"examples/**", "!examples/keep/**"}}, []string{"examples/keep/x.js", "p/x.js"}, []string{"examples/drop/x.js"}},
		{"dot files match", Scope{Include: []string{"packages/*/*"}}, []string{"packages/a/.eslintrc.json"}, []string{"packages/a/b/.eslintrc.json"}},
		{"braces", Scope{Include: []string{"{apps,libs}/**"}}, []string{"apps/a/x", "libs/b/x"}, []string{"tools/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range tc.in {
				if !tc.scope.Admits(p) {
					t.Errorf("%+v does not admit %s", tc.scope, p)
				}
			}
			for _, p := range tc.out {
				if tc.scope.Admits(p) {
					t.Errorf("%+v admits %s", tc.scope, p)
				}
			}
		})
	}
}

// TestScopeAdmitsProjectsByRootOrPackageJSON: a project is in scope
// when a list names its root as "projects" names directories
// ("packages/*") or its package.json as Nx names a project's files
// ("packages/**/*", "packages/watt/package.json").
func TestScopeAdmitsProjectsByRootOrPackageJSON(t *testing.T) {
	tests := []struct {
		scope Scope
		root  string
		want  bool
	}{
		{Scope{}, "examples/react/basic", true},
		{Scope{Include: []string{"packages/*"}}, "packages/a", true},
		{Scope{Include: []string{"packages/**/*"}}, "packages/a", true},
		{Scope{Include: []string{"packages/**"}}, "packages/a/nested", true},
		{Scope{Include: []string{"packages/*"}}, "examples/react/basic", false},
		{Scope{Include: []string{"packages/**/*"}}, ".", false},
		{Scope{Include: []string{"package.json", "packages/*"}}, ".", true},
		{Scope{Exclude: []string{"examples/**"}}, "examples/react/basic", false},
		{Scope{Exclude: []string{"examples/**/*"}}, "examples/react/basic", false},
		{Scope{Exclude: []string{"examples/**/*"}}, "packages/a", true},
		{Scope{Exclude: []string{"packages/watt/package.json"}}, "packages/watt", false},
		{Scope{Exclude: []string{"packages/a/src/**"}}, "packages/a", true},
	}
	for _, tc := range tests {
		if got := tc.scope.AdmitsProject(tc.root); got != tc.want {
			t.Errorf("%+v admits project %q: %v, want %v", tc.scope, tc.root, got, tc.want)
		}
	}
}

// TestScopeGlobChecked: a glob that is empty, absolute, climbs out with
// "..", holds a "." segment or a backslash, or does not parse is refused,
// saying why; a "!" glob is checked after its "!".
func TestScopeGlobChecked(t *testing.T) {
	for _, g := range []string{"packages/**", "!examples/**", "{apps,libs}/*", "**/*.{js,ts}", "a/[bc]/d"} {
		if err := CheckScopeGlob(g); err != nil {
			t.Errorf("%q refused: %v", g, err)
		}
	}
	for g, why := range map[string]string{
		"": "empty", "!": "empty", "/abs/**": "workspace-relative", "../x/**": ". or ..", "packages/../x": ". or ..",
		"./packages/**": ". or ..", "!../x": ". or ..", "a\\b": "workspace-relative", "packages/[": "not a valid glob", "{a,b": "not a valid glob",
		strings.Repeat("a", 1025): "longer",
	} {
		err := CheckScopeGlob(g)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%.20q: %v, want an error saying %q", g, err, why)
		}
	}
}

// TestScopePrefixGlobsAgreeWithDoublestar: "DIR/**" and "DIR/**/*",
// tested as a prefix, match exactly the paths doublestar matches.
func TestScopePrefixGlobsAgreeWithDoublestar(t *testing.T) {
	globs := []string{"packages/**", "packages/**/*", "packages/a/**", "examples/react/**/*", "pack/**", "packages/*/**", "{a,b}/**"}
	paths := []string{"packages", "packages/a", "packages/a/b.js", "packagesx/a", "pack", "packages/ab", "examples/react", "examples/react/x",
		"examples/reactx/y", "a/x", "b", "packages/a/.x"}
	for _, g := range globs {
		sg := compileList([]string{g})[0]
		for _, p := range paths {
			want, _ := doublestar.Match(g, p)
			if got := sg.match(p); got != want {
				t.Errorf("%q on %q: %v, doublestar says %v", g, p, got, want)
			}
		}
	}
}
