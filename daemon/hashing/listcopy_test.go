package hashing_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// A workspace copied with its .vx (a CI cache restored into another
// checkout, cp -a) holds a listing saved for the original: its stats are
// the original's, which still match, so it must not be taken for the copy.
func TestCopiedListingIsNotReused(t *testing.T) {
	defer hashing.SetRacyWindow(30 * time.Millisecond)()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	base := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", base)
	orig := filepath.Join(base, "orig")
	write(t, filepath.Join(orig, "a.txt"), "a", time.Time{})
	write(t, filepath.Join(orig, "src", "b.ts"), "b", time.Time{})
	git(t, orig, "init", "-q")
	git(t, orig, "add", "-A")
	git(t, orig, "commit", "-q", "-m", "init")
	ctx := context.Background()
	listing := func(root string) string { return filepath.Join(root, ".vx", "listing") }
	// The first listing makes .vx (the root's stat moves); the next, past
	// the racy window, is saved.
	for i := 0; i < 2; i++ {
		if _, _, err := hashing.ListFilesCached(ctx, orig, listing(orig)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(80 * time.Millisecond)
	}
	if _, reused, _ := hashing.ListFilesCached(ctx, orig, listing(orig)); !reused {
		t.Fatal("the original's listing was not saved and reused")
	}

	cp := filepath.Join(base, "copy")
	if out, err := exec.Command("cp", "-a", orig, cp).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	write(t, filepath.Join(cp, "src", "new.ts"), "n", time.Time{})
	got, reused, err := hashing.ListFilesCached(ctx, cp, listing(cp))
	if err != nil {
		t.Fatal(err)
	}
	want, err := hashing.ListFiles(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if reused || !reflect.DeepEqual(got, want) {
		t.Fatalf("the copy's listing (reused %v) =\n  %q\ngit lists\n  %q", reused, got, want)
	}
}
