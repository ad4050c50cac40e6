package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// evalFrom must answer as filepath.EvalSymlinks for every path beneath a
// symlink-free base, symlinks below it included.
func TestEvalFromMatchesEvalSymlinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"real/sub", "other"} {
		mkdirs(t, filepath.Join(base, d))
	}
	if err := os.WriteFile(filepath.Join(base, "real/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(base, "out")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"", "real", "real/sub", "real/f", "link", "link/sub", "link/f", "out", "out/passwd", "missing", "real/missing", "real/f/x", "link/missing"} {
		p := filepath.Join(base, rel)
		want, wantErr := filepath.EvalSymlinks(p)
		got, gotErr := evalFrom(base, p, 0)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("evalFrom(%q): %q, %v; EvalSymlinks: %q, %v", rel, got, gotErr, want, wantErr)
		}
	}
	// A path outside the base, or no base, takes the general way.
	if got, err := evalFrom(base, "/etc", 0); err != nil || got != "/etc" {
		t.Errorf("evalFrom outside the base: %q, %v", got, err)
	}
	if got, _ := evalFrom("", filepath.Join(base, "link"), 0); got != filepath.Join(base, "real") {
		t.Errorf("evalFrom without a base: %q", got)
	}
}
