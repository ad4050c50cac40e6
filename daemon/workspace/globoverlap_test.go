package workspace

import "testing"

// TestGlobsMayOverlap: two output globs overlap when one file could match
// both, in either order.
func TestGlobsMayOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{".cache/tsbuildinfo.json", ".cache/tsbuildinfo.json", true},
		{".cache/tsbuildinfo.json", "./.cache/tsbuildinfo.json", true},
		{"dist/**", "dist/index.js", true},
		{"dist", "dist/index.js", true}, // a directory holds its files
		{".cache/**", ".cache/tsbuildinfo.json", true},
		{"dist/*.js", "dist/index.js", true},
		{"dist/*.js", "dist/index.d.ts", false},
		{"dist/**", "lib/**", false},
		{"dist/**", ".cache/tsbuildinfo.json", false},
		{"**/*.js", "lib/x.js", true},
		{"out/a/*.txt", "out/b/*.txt", false},
		{"coverage/**", "coverage-final.json", false},
	} {
		if got := globsMayOverlap(tc.a, tc.b); got != tc.want {
			t.Errorf("globsMayOverlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := globsMayOverlap(tc.b, tc.a); got != tc.want {
			t.Errorf("globsMayOverlap(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}
