package hashing_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// A listing saved by this call answers the saved file's identity (what a
// run with vxd up then vouches for); a reused one and one not saved (a
// change within the racy window) answer none.
func TestListingSavedIdentity(t *testing.T) {
	defer hashing.SetRacyWindow(30 * time.Millisecond)()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	repo := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(repo))
	write(t, filepath.Join(repo, "a.txt"), "a", time.Time{})
	git(t, repo, "init", "-q")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "init")
	saved := filepath.Join(repo, ".vx", "listing")
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	time.Sleep(80 * time.Millisecond)
	step := func(what string, wantReused, wantSaved bool) {
		t.Helper()
		reused, ok, same, err := hashing.ListFilesSaved(ctx, repo, saved)
		if err != nil || reused != wantReused || ok != wantSaved || ok && !same {
			t.Fatalf("%s: reused %v saved %v (identity matches: %v), %v; want reused %v saved %v", what, reused, ok, same, err, wantReused, wantSaved)
		}
	}
	step("the first listing", false, true)
	step("nothing changed", true, false)
	write(t, filepath.Join(repo, "b.txt"), "b", time.Time{})
	step("a file just added", false, false)
	time.Sleep(80 * time.Millisecond)
	step("past the racy window", false, true)
}
