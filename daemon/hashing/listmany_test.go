package hashing_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// A workspace of 10,000 packages with a src directory each (20,002
// directories, as scripts/bench/gen makes them) has its listing saved and
// reused: the journal vouches for no listing that is not saved, so a
// smaller bound on the listing left such a tree listed by git on every
// run and never repeated.
func TestListingOfTenThousandPackagesSaved(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 20,000 directories")
	}
	needGit(t)
	defer hashing.SetRacyWindow(30 * time.Millisecond)()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	repo := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(repo))
	for i := range 10000 {
		src := filepath.Join(repo, "packages", fmt.Sprintf("pkg-%05d", i), "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "a.js"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "init", "-q")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "init")
	saved := filepath.Join(repo, ".vx", "listing")
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(80 * time.Millisecond)
	ctx := context.Background()
	if _, ok, _, err := hashing.ListFilesSaved(ctx, repo, saved); err != nil || !ok {
		t.Fatalf("the first listing of 20,002 directories: saved %v, %v; want it saved", ok, err)
	}
	files, reused, err := hashing.ListFilesCached(ctx, repo, saved)
	if err != nil || !reused || len(files) != 10000 {
		t.Fatalf("the second listing: %d files, reused %v, %v; want 10000 files, reused", len(files), reused, err)
	}
}
