package hashing_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/internal/wine"
)

// A workspace entered through a symbolic link (its root path is the
// link's) is listed, and its saved listing checked, as the tree the link
// names: a file made after the listing was saved is listed, in git or
// not.
func TestListingThroughALinkedRoot(t *testing.T) {
	needGit(t)
	wine.NeedSymlinks(t)
	defer hashing.SetRacyWindow(0)()
	for _, inGit := range []bool{true, false} {
		tmp := t.TempDir()
		real, root := filepath.Join(tmp, "real"), filepath.Join(tmp, "link")
		if err := os.MkdirAll(filepath.Join(real, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(real, "src", "a.js"), []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		if inGit {
			if out, err := exec.Command("git", "init", "-q", real).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
		}
		if err := os.Symlink(real, root); err != nil {
			t.Fatal(err)
		}
		listing := filepath.Join(root, ".vx", "filelist")
		first, _, err := hashing.ListFilesCached(context.Background(), root, listing)
		if err != nil || !slices.Equal(first, []string{"src/a.js"}) {
			t.Fatalf("git %v: listed %q (%v), want src/a.js", inGit, first, err)
		}
		if err := os.WriteFile(filepath.Join(real, "src", "b.js"), []byte("b"), 0o644); err != nil {
			t.Fatal(err)
		}
		second, _, err := hashing.ListFilesCached(context.Background(), root, listing)
		if err != nil || !slices.Equal(second, []string{"src/a.js", "src/b.js"}) {
			t.Fatalf("git %v: after src/b.js was made, listed %q (%v)", inGit, second, err)
		}
	}
}
