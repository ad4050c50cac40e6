package runner

import "testing"

func TestOutputsAllow(t *testing.T) {
	cases := []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{"dist/**"}, "dist/a.js", true},
		{[]string{"dist/**"}, "dist/deep/b/c.txt", true},
		{[]string{"dist"}, "dist/deep/c.txt", true},
		{[]string{"./dist/**"}, "dist/a.js", true},
		{[]string{"dist/**"}, "src/index.ts", false},
		{[]string{"dist/**"}, "package.json", false},
		{[]string{"dist/**"}, ".git/hooks/pre-commit", false},
		{[]string{"dist/**"}, "distx/a.js", false},
		{[]string{"dist/**", "!dist/**/*.map"}, "dist/a.js.map", false},
		{[]string{"dist/**", "!dist/**/*.map", "dist/keep.map"}, "dist/keep.map", true},
		{[]string{"**/*.d.ts"}, "types/x/index.d.ts", true},
		{[]string{"**/*.d.ts"}, "types/x/index.ts", false},
		{nil, "anything", false},
		{[]string{"**"}, ".vx/daemon/vxd.json", false},
		{[]string{"**"}, ".git/hooks/pre-commit", false},
		{[]string{"**"}, "src/.git/x", true},
	}
	for _, c := range cases {
		if got := outputsAllow(c.globs)(c.path); got != c.want {
			t.Errorf("outputs %q, path %s: %v, want %v", c.globs, c.path, got, c.want)
		}
	}
}
