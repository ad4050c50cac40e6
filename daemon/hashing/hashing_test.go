package hashing_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/internal/wine"
)

func write(t *testing.T, path, body string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

// rewriteInPlace changes the content without changing size, mtime or inode.
func rewriteInPlace(t *testing.T, path, body string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(body)) != st.Size() {
		t.Fatalf("rewriteInPlace: size %d != %d", len(body), st.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(body), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

func TestSum(t *testing.T) {
	if hashing.Sum([]byte("a")) != hashing.SumString("a") {
		t.Error("Sum and SumString differ")
	}
	if len(hashing.SumString("a")) != 32 {
		t.Errorf("Sum is %d hex chars, want 32", len(hashing.SumString("a")))
	}
	if hashing.SumString("a") == hashing.SumString("b") {
		t.Error("Sum does not depend on content")
	}
}

func TestHashFile(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	write(t, filepath.Join(dir, "a"), "hello", old)
	write(t, filepath.Join(dir, "b"), "hello", old)
	write(t, filepath.Join(dir, "c"), "hellO", old)
	write(t, filepath.Join(dir, "empty"), "", old)
	wine.NeedSymlinks(t)
	if err := os.Symlink("a", filepath.Join(dir, "link-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("c", filepath.Join(dir, "link-c")); err != nil {
		t.Fatal(err)
	}
	h := hashing.NewHasher("")
	hash := func(name string) string {
		t.Helper()
		s, err := h.HashFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("HashFile(%s): %v", name, err)
		}
		return s
	}
	tests := []struct {
		name  string
		a, b  string
		equal bool
	}{
		{"same file twice", "a", "a", true},
		{"same content in two files", "a", "b", true},
		{"one byte differs", "a", "c", false},
		{"empty differs from content", "a", "empty", false},
		{"symlink hashes its target path, not the content", "link-a", "a", false},
		{"symlinks to different targets", "link-a", "link-c", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := hash(tc.a) == hash(tc.b); got != tc.equal {
				t.Errorf("hash(%s) == hash(%s): %v, want %v", tc.a, tc.b, got, tc.equal)
			}
		})
	}
	if got := hash("a"); got != hashing.SumString("hello") {
		t.Errorf("hash of a = %s, want Sum(content) %s", got, hashing.SumString("hello"))
	}
	if !strings.HasPrefix(hash("link-a"), "link:") {
		t.Errorf("symlink hash %q lacks the link: prefix", hash("link-a"))
	}
	for _, bad := range []string{dir, filepath.Join(dir, "missing")} {
		if _, err := h.HashFile(bad); err == nil {
			t.Errorf("HashFile(%s) succeeded, want an error", bad)
		}
	}
}

func TestStatCache(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	tests := []struct {
		name   string
		change func(t *testing.T, path string) // after the cache is saved
		rehash bool                            // the new content must be seen
	}{
		{
			name:   "ctime changed (an in-place edit of the same size, the mtime put back)",
			change: func(t *testing.T, p string) { rewriteInPlace(t, p, "version-B") },
			rehash: true,
		},
		{
			name:   "size changed",
			change: func(t *testing.T, p string) { write(t, p, "version-B!", old) },
			rehash: true,
		},
		{
			name: "mtime changed",
			change: func(t *testing.T, p string) {
				rewriteInPlace(t, p, "version-B")
				later := old.Add(time.Minute)
				if err := os.Chtimes(p, later, later); err != nil {
					t.Fatal(err)
				}
			},
			rehash: true,
		},
		{
			name: "inode changed (replaced by a rename, same size and mtime)",
			change: func(t *testing.T, p string) {
				tmp := p + ".new"
				write(t, tmp, "version-B", old)
				if err := os.Rename(tmp, p); err != nil {
					t.Fatal(err)
				}
			},
			rehash: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cachePath := filepath.Join(dir, ".vx", "statcache")
			p := filepath.Join(dir, "src", "f.txt")
			write(t, p, "version-A", old)

			h1 := hashing.NewHasher(cachePath)
			first, err := h1.HashFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := h1.Save(); err != nil {
				t.Fatalf("Save: %v", err)
			}
			b, err := os.ReadFile(cachePath)
			if err != nil || !bytes.HasPrefix(b, []byte("vxstat2\n")) || !bytes.Contains(b, []byte(p)) {
				t.Fatalf("stat cache file: %q, %v", b, err)
			}

			tc.change(t, p)
			h2 := hashing.NewHasher(cachePath)
			got, err := h2.HashFile(p)
			if err != nil {
				t.Fatal(err)
			}
			fresh := hashing.SumString(mustRead(t, p))
			switch {
			case tc.rehash && got != fresh:
				t.Errorf("hash = %s, want the new content's %s", got, fresh)
			case !tc.rehash && got != first:
				t.Errorf("hash = %s, want the cached %s (the file was re-read)", got, first)
			}
		})
	}
}

// TestStatCacheTrustsAnUnchangedStat proves the cache is used: a hash
// planted in the saved cache for a file whose stat did not move is what
// HashFile answers, without reading the file.
func TestStatCacheTrustsAnUnchangedStat(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, "statcache")
	p := filepath.Join(dir, "f")
	write(t, p, "version-A", time.Now().Add(-time.Hour))
	h1 := hashing.NewHasher(cachePath)
	first, err := h1.HashFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := h1.Save(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := hex.DecodeString(first)
	planted := hashing.SumString("planted")
	fake, _ := hex.DecodeString(planted)
	if !bytes.Contains(b, real) {
		t.Fatalf("the saved cache does not hold the file's hash %s", first)
	}
	if err := os.WriteFile(cachePath, bytes.Replace(b, real, fake, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := hashing.NewHasher(cachePath).HashFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != planted {
		t.Errorf("hash = %s, want the cached %s (the file was re-read)", got, planted)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStatCacheSkipsRecentFiles(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, "statcache")
	p := filepath.Join(dir, "f")
	write(t, p, "version-A", time.Time{}) // mtime: now
	h := hashing.NewHasher(cachePath)
	if _, err := h.HashFile(p); err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, p, "version-B") // same size, mtime, inode
	got, err := h.HashFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := hashing.SumString("version-B"); got != want {
		t.Errorf("a file modified just now was served from the stat cache: %s, want %s", got, want)
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cachePath); !os.IsNotExist(err) {
		t.Errorf("Save wrote a cache holding only recent files (stat err %v)", err)
	}
}

func TestNewHasherBadCache(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	tests := []struct {
		name string
		body []byte
	}{
		{"not a stat cache", []byte("garbage")},
		{"magic only", []byte("vxstat2\n")},
		{"truncated record", append([]byte("vxstat2\n"), 0xff, 0x00, 'a')},
		{"huge name length", append([]byte("vxstat2\n"), 0xff, 0xff)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cachePath := filepath.Join(dir, "statcache")
			if err := os.WriteFile(cachePath, tc.body, 0o644); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "f")
			write(t, p, "content", old)
			h := hashing.NewHasher(cachePath)
			got, err := h.HashFile(p)
			if err != nil || got != hashing.SumString("content") {
				t.Errorf("HashFile = %s, %v", got, err)
			}
			if err := h.Save(); err != nil {
				t.Fatal(err)
			}
			if h2 := hashing.NewHasher(cachePath); h2 == nil {
				t.Fatal("nil hasher")
			}
		})
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	needGit(t)
	full := append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// needGit skips t under wine when git is not on PATH: the wine prefix
// has no git for Windows (the hosted runner has it).
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		wine.Skip(t, "the wine prefix has no git for Windows")
	}
}

func TestListFiles(t *testing.T) {
	files := map[string]string{
		".gitignore":                  "*.log\ndist/\n",
		"a.txt":                       "a",
		"src/b.ts":                    "b",
		"src/deep/c.ts":               "c",
		"debug.log":                   "ignored",
		"dist/out.js":                 "ignored",
		".vx/vx.db":                   "state",
		"node_modules/x/index.js":     "dep",
		"pkg/node_modules/y/index.js": "dep",
		"tracked-then-deleted.txt":    "gone",
		"with space/and-ünïcode.txt":  "u",
	}
	tests := []struct {
		name string
		git  bool
		want []string
	}{
		{
			name: "in a git repository",
			git:  true,
			want: []string{".gitignore", "a.txt", "new-untracked.txt", "src/b.ts", "src/deep/c.ts", "with space/and-ünïcode.txt"},
		},
		{
			name: "outside git it walks",
			git:  false,
			want: []string{".gitignore", "a.txt", "debug.log", "dist/out.js", "new-untracked.txt", "src/b.ts", "src/deep/c.ts", "with space/and-ünïcode.txt"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(root))
			for name, body := range files {
				write(t, filepath.Join(root, filepath.FromSlash(name)), body, time.Time{})
			}
			if tc.git {
				git(t, root, "init", "-q")
				// Track even .vx and node_modules: ListFiles must still skip them.
				git(t, root, "add", "-A", "-f", ".vx", "node_modules", "pkg", ".gitignore", "a.txt", "src", "tracked-then-deleted.txt", "with space")
				git(t, root, "commit", "-q", "-m", "init")
			}
			if err := os.Remove(filepath.Join(root, "tracked-then-deleted.txt")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(root, "new-untracked.txt"), "n", time.Time{})
			got, err := hashing.ListFiles(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ListFiles =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
	t.Run("a subdirectory of a repository lists relative to it", func(t *testing.T) {
		repo := t.TempDir()
		for name, body := range map[string]string{".gitignore": "*.log\n", "ws/a.txt": "a", "ws/x.log": "l", "other/b.txt": "b"} {
			write(t, filepath.Join(repo, filepath.FromSlash(name)), body, time.Time{})
		}
		git(t, repo, "init", "-q")
		got, err := hashing.ListFiles(context.Background(), filepath.Join(repo, "ws"))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a.txt"}; !reflect.DeepEqual(got, want) {
			t.Errorf("ListFiles = %q, want %q", got, want)
		}
	})
	t.Run("a missing root is an error", func(t *testing.T) {
		if _, err := hashing.ListFiles(context.Background(), filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Error("ListFiles of a missing dir succeeded")
		}
	})
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	t.Run("creates parents and writes", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "a", "b", "f.json")
		if err := hashing.WriteFileAtomic(p, []byte("new"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, p); got != "new" {
			t.Errorf("content = %q", got)
		}
		st, _ := os.Stat(p)
		if st.Mode().Perm() != kept(0o600) {
			t.Errorf("perm = %v, want %v", st.Mode().Perm(), kept(0o600))
		}
		noTemps(t, filepath.Dir(p))
	})
	t.Run("replaces an existing file", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f")
		write(t, p, "old content", time.Time{})
		if err := hashing.WriteFileAtomic(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, p); got != "new" {
			t.Errorf("content = %q", got)
		}
		noTemps(t, dir)
	})
	t.Run("a failed rename keeps the old target and leaves no temp file", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "target")
		write(t, filepath.Join(p, "keep.txt"), "old", time.Time{}) // target is a non-empty directory
		if err := hashing.WriteFileAtomic(p, []byte("new"), 0o644); err == nil {
			t.Fatal("WriteFileAtomic over a directory succeeded")
		}
		if got := mustRead(t, filepath.Join(p, "keep.txt")); got != "old" {
			t.Errorf("old content = %q", got)
		}
		noTemps(t, dir)
	})
	t.Run("an uncreatable parent is an error", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "file"), "x", time.Time{})
		if err := hashing.WriteFileAtomic(filepath.Join(dir, "file", "sub", "f"), []byte("new"), 0o644); err == nil {
			t.Error("WriteFileAtomic under a regular file succeeded")
		}
	})
}
