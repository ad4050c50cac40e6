package hashing_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// The saved listing must answer what git answers after every kind of
// change, and be reused when nothing changed.
func TestListFilesCached(t *testing.T) {
	defer hashing.SetRacyWindow(30 * time.Millisecond)()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	repo := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(repo))
	for name, body := range map[string]string{
		".gitignore": "*.log\ndist/\n", "ws/a.txt": "a", "ws/src/b.ts": "b", "ws/src/deep/c.ts": "c",
		"ws/gone.txt": "g", "ws/dist/out.js": "o", "other/x.txt": "x",
	} {
		write(t, filepath.Join(repo, filepath.FromSlash(name)), body, time.Time{})
	}
	if err := os.MkdirAll(filepath.Join(repo, "ws", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "init")
	root := filepath.Join(repo, "ws") // a workspace below the repository's top
	saved := filepath.Join(root, ".vx", "listing")
	ctx := context.Background()

	check := func(t *testing.T, step string, wantReuse bool) {
		t.Helper()
		got, reused, err := hashing.ListFilesCached(ctx, root, saved)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		want, err := hashing.ListFiles(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ListFilesCached =\n  %q\nListFiles =\n  %q", step, got, want)
		}
		if reused != wantReuse {
			t.Errorf("%s: reused = %v, want %v", step, reused, wantReuse)
		}
	}
	// change makes a change, waits out the racy window, and expects a new
	// listing, then its reuse.
	change := func(step string, do func()) {
		do()
		time.Sleep(80 * time.Millisecond)
		check(t, step, false)
		check(t, step+", again", true)
	}
	path := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil { // as vx's state dir exists
		t.Fatal(err)
	}
	time.Sleep(80 * time.Millisecond)
	check(t, "first", false)
	check(t, "unchanged", true)
	change("an untracked file", func() { write(t, path("src/new.ts"), "n", time.Time{}) })
	change("a file in a directory that held none", func() { write(t, path("empty/e.txt"), "e", time.Time{}) })
	change("a new directory", func() { write(t, path("newdir/sub/f.txt"), "f", time.Time{}) })
	change("a tracked file removed", func() { os.Remove(path("gone.txt")) })
	change("an untracked file removed", func() { os.Remove(path("src/new.ts")) })
	change("a rename", func() { os.Rename(path("src/deep/c.ts"), path("src/deep/c2.ts")) })
	change("an ignore rule of the workspace", func() { write(t, path(".gitignore"), "e.txt\n", time.Time{}) })
	change("the ignore rule edited", func() { write(t, path(".gitignore"), "f.txt\n", time.Time{}) })
	change("an ignore rule above the workspace", func() { write(t, filepath.Join(repo, ".gitignore"), "*.log\ndist/\n*.ts\n", time.Time{}) })
	change("a nested ignore file", func() { write(t, path("src/.gitignore"), "*.ts\n", time.Time{}) })
	change("info/exclude", func() { write(t, filepath.Join(repo, ".git", "info", "exclude"), "a.txt\n", time.Time{}) })
	change("the index (git add -f)", func() { git(t, repo, "add", "-f", "ws/dist/out.js") })
	change("an excludes file set in the config", func() {
		write(t, filepath.Join(repo, "excludes"), "sub/\n", time.Time{})
		git(t, repo, "config", "core.excludesFile", filepath.Join(repo, "excludes"))
	})
	change("the excludes file edited", func() { write(t, filepath.Join(repo, "excludes"), "newdir/\n", time.Time{}) })
	change("a global config created", func() {
		write(t, filepath.Join(os.Getenv("HOME"), ".gitconfig"), "[core]\n\texcludesFile = ~/ignore\n", time.Time{})
		write(t, filepath.Join(os.Getenv("HOME"), "ignore"), "e.txt\n", time.Time{})
	})
	change("an ignored directory written", func() { write(t, path("dist/more.js"), "m", time.Time{}) })
	t.Setenv("GIT_CONFIG_COUNT", "0")
	check(t, "the environment changed", false)
	check(t, "the environment changed, again", true)

	t.Run("a torn or foreign file is not trusted", func(t *testing.T) {
		for _, body := range []string{"", "vxlist1\n", "vxlist1\n\xff\xff", "garbage"} {
			if err := os.WriteFile(saved, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, "bad listing "+body, false)
		}
	})
	t.Run("changes within the racy window are not saved", func(t *testing.T) {
		write(t, path("src/racy.ts"), "r", time.Time{})
		check(t, "racy", false)
		check(t, "racy, right after", false)
	})
}
