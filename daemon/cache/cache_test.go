package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// node is one output in a test tree: a file (content, mode) or a symlink.
type node struct {
	content string
	mode    fs.FileMode
	link    string
}

func writeTree(t testing.TB, root string, tree map[string]node) []string {
	t.Helper()
	var names []string
	for name, n := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if n.link != "" {
			if err := os.Symlink(n.link, p); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := os.WriteFile(p, []byte(n.content), n.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, n.mode); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// readTree returns every file and symlink under root.
func readTree(t testing.TB, root string) map[string]node {
	t.Helper()
	got := map[string]node{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			l, err := os.Readlink(p)
			got[rel] = node{link: l}
			return err
		}
		b, err := os.ReadFile(p)
		got[rel] = node{content: string(b), mode: fi.Mode().Perm()}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func diffTree(t *testing.T, want, got map[string]node) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: missing after restore", name)
		case w.link != g.link:
			t.Errorf("%s: link %q, want %q", name, g.link, w.link)
		case w.link == "" && w.content != g.content:
			t.Errorf("%s: content differs (%d bytes, want %d)", name, len(g.content), len(w.content))
		case w.link == "" && w.mode != g.mode:
			t.Errorf("%s: mode %v, want %v", name, g.mode, w.mode)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: restored but not an output", name)
		}
	}
}

func randomString(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), ".vx", "cache"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func meta(key string) Meta {
	return Meta{Key: key, TaskID: "web#build", Project: "web", Task: "build", Command: "tsc -b", ExitCode: 0, DurationMs: 1234}
}

const key1 = "0123456789abcdef0123456789abcdef"

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		tree map[string]node
		log  string
	}{
		{
			name: "nested dirs and modes",
			tree: map[string]node{
				"dist/index.js":          {content: "console.log(1)\n", mode: 0o644},
				"dist/bin/run":           {content: "#!/bin/sh\necho hi\n", mode: 0o755},
				"dist/deep/a/b/c/d.txt":  {content: "deep", mode: 0o600},
				"dist/empty.txt":         {content: "", mode: 0o640},
				"types/index.d.ts":       {content: "export {}\n", mode: 0o444},
				"dist/with space/ü.json": {content: "{}", mode: 0o644},
			},
			log: "building…\ndone\n",
		},
		{
			name: "symlinks",
			tree: map[string]node{
				"dist/main.js":       {content: "x", mode: 0o644},
				"dist/latest.js":     {link: "main.js"},
				"dist/lib":           {link: "../node_modules/lib"},
				"bin/tool":           {link: "/usr/bin/env"},
				"dist/dangling-link": {link: "nowhere/at/all"},
			},
		},
		{
			name: "empty outputs",
			tree: map[string]node{},
			log:  "nothing to do\n",
		},
		{
			name: "empty log and one file",
			tree: map[string]node{"out.txt": {content: "1", mode: 0o644}},
		},
		{
			name: "big files",
			tree: map[string]node{
				"dist/random.bin": {content: randomString(3 << 20), mode: 0o644},
				"dist/zeros.bin":  {content: strings.Repeat("\x00", 4<<20), mode: 0o600},
				"dist/small.txt":  {content: "small", mode: 0o644},
			},
			log: strings.Repeat("log line\n", 10000),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			src := t.TempDir()
			files := writeTree(t, src, tc.tree)
			m := meta(key1)
			m.Created = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
			e, err := s.Put(context.Background(), m, src, files, []byte(tc.log))
			if err != nil {
				t.Fatal(err)
			}
			if e.Files != len(tc.tree) || e.Key != key1 || !e.Created.Equal(m.Created) {
				t.Errorf("Put entry = %+v", e)
			}
			fi, err := os.Stat(e.Path)
			if err != nil || fi.Size() != e.Size {
				t.Fatalf("entry file %s: %v, size %d, want %d", e.Path, err, fi.Size(), e.Size)
			}

			h, err := s.Get(key1)
			if err != nil {
				t.Fatal(err)
			}
			if h.Entry != e {
				t.Errorf("Get entry = %+v, want %+v", h.Entry, e)
			}
			log, err := h.Log()
			if err != nil || string(log) != tc.log {
				t.Errorf("Log() = %d bytes, %v; want %d bytes", len(log), err, len(tc.log))
			}
			dst := t.TempDir()
			restored, err := h.Restore(dst)
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(restored)
			if !slices.Equal(restored, files) {
				t.Errorf("Restore returned %q, want %q", restored, files)
			}
			diffTree(t, tc.tree, readTree(t, dst))
		})
	}
}

func TestRestoreReplacesChangedOutputs(t *testing.T) {
	s := openStore(t)
	root := t.TempDir()
	tree := map[string]node{
		"dist/a.js":     {content: "a", mode: 0o644},
		"dist/b.js":     {content: "b", mode: 0o755},
		"dist/c.js":     {content: "c", mode: 0o644},
		"dist/sub/d.js": {content: "d", mode: 0o644},
		"dist/link":     {link: "a.js"},
	}
	files := writeTree(t, root, tree)
	if _, err := s.Put(context.Background(), meta(key1), root, files, nil); err != nil {
		t.Fatal(err)
	}
	// Delete, modify, change mode, and turn a file into a symlink pointing
	// at another output: none of it may survive the restore.
	if err := os.RemoveAll(filepath.Join(root, "dist/sub")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "dist/a.js"), []byte("modified and longer"), 0o644)
	os.Chmod(filepath.Join(root, "dist/b.js"), 0o600)
	os.Remove(filepath.Join(root, "dist/c.js"))
	os.Symlink("a.js", filepath.Join(root, "dist/c.js"))
	os.Remove(filepath.Join(root, "dist/link"))
	os.WriteFile(filepath.Join(root, "dist/link"), []byte("now a file"), 0o644)

	h, err := s.Get(key1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Restore(root); err != nil {
		t.Fatal(err)
	}
	diffTree(t, tree, readTree(t, root))
}

func TestPutReplacesEntry(t *testing.T) {
	s := openStore(t)
	root := t.TempDir()
	writeTree(t, root, map[string]node{"a": {content: "one", mode: 0o644}})
	if _, err := s.Put(context.Background(), meta(key1), root, []string{"a"}, []byte("first")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]node{"a": {content: "two", mode: 0o644}, "b": {content: "bee", mode: 0o644}})
	if _, err := s.Put(context.Background(), meta(key1), root, []string{"a", "b"}, []byte("second")); err != nil {
		t.Fatal(err)
	}
	h, err := s.Get(key1)
	if err != nil {
		t.Fatal(err)
	}
	if log, _ := h.Log(); string(log) != "second" || h.Files != 2 {
		t.Errorf("after replace: log %q, %d files", log, h.Files)
	}
	assertNoTemps(t, s.dir)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

func TestCorruptEntries(t *testing.T) {
	tree := map[string]node{
		"dist/a.txt": {content: strings.Repeat("abc", 1000), mode: 0o644},
		"dist/b.txt": {content: "b", mode: 0o755},
	}
	tests := []struct {
		name string
		mess func(b []byte) []byte
		want string
	}{
		{"empty file", func(b []byte) []byte { return nil }, "truncated"},
		{"truncated prefix", func(b []byte) []byte { return b[:20] }, "truncated"},
		{"truncated trailer", func(b []byte) []byte { return b[:len(b)-3] }, "truncated"},
		{"truncated archive", func(b []byte) []byte { return b[:len(b)/2] }, "truncated"},
		{"extra bytes", func(b []byte) []byte { return append(b, 0) }, "padded"},
		{"wrong magic", func(b []byte) []byte { b[0] = 'X'; return b }, "bad magic"},
		{"other version", func(b []byte) []byte { b[8] = 99; return b }, "format version 99"},
		{"flipped meta byte", func(b []byte) []byte { b[prefixSize+3] ^= 1; return b }, "header checksum"},
		{"flipped archive byte", func(b []byte) []byte { b[len(b)-20] ^= 0x40; return b }, "checksum mismatch"},
		{"flipped trailer byte", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, "checksum mismatch"},
		{"flipped length", func(b []byte) []byte { b[24]++; return b }, "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			src := t.TempDir()
			files := writeTree(t, src, tree)
			e, err := s.Put(context.Background(), meta(key1), src, files, []byte("log"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(e.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(e.Path, tc.mess(b), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := s.Get(key1)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Get = %v, %v; want ErrCorrupt", h, err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), e.Path) {
				t.Errorf("error %q does not name the path and %q", err, tc.want)
			}
			// The next Put replaces the damaged entry.
			if _, err := s.Put(context.Background(), meta(key1), src, files, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(key1); err != nil {
				t.Errorf("Get after re-Put: %v", err)
			}
		})
	}
}

// TestRestoreVerifiesReplacedEntry damages a large entry between Get and
// Restore: Restore must notice and write nothing.
func TestRestoreVerifiesReplacedEntry(t *testing.T) {
	s := openStore(t)
	src := t.TempDir()
	files := writeTree(t, src, map[string]node{
		"a.bin": {content: randomString(2 << 20), mode: 0o644},
		"b.txt": {content: "b", mode: 0o644},
	})
	e, err := s.Put(context.Background(), meta(key1), src, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Get(key1)
	if err != nil {
		t.Fatal(err)
	}
	if h.data != nil {
		t.Fatal("test needs an entry too big to be held in memory")
	}
	b, _ := os.ReadFile(e.Path)
	b[len(b)-100] ^= 1
	tmp := e.Path + ".new"
	os.WriteFile(tmp, b, 0o644)
	if err := os.Rename(tmp, e.Path); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if _, err := h.Restore(dst); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Restore = %v, want ErrCorrupt", err)
	}
	if got := readTree(t, dst); len(got) != 0 {
		t.Errorf("Restore of a damaged entry wrote %v", got)
	}
}

func TestPathTraversal(t *testing.T) {
	t.Run("Put refuses", func(t *testing.T) {
		s := openStore(t)
		root := filepath.Join(t.TempDir(), "ws")
		writeTree(t, root, map[string]node{"a": {content: "a", mode: 0o644}})
		os.WriteFile(filepath.Join(filepath.Dir(root), "outside"), []byte("x"), 0o644)
		for _, bad := range []string{"../outside", "/etc/passwd", "a/../../outside", ""} {
			_, err := s.Put(context.Background(), meta(key1), root, []string{"a", bad}, nil)
			if err == nil || !strings.Contains(err.Error(), "not inside the root") {
				t.Errorf("Put(%q) = %v, want a refusal naming the path", bad, err)
			}
		}
		assertNoTemps(t, s.dir)
	})

	tests := []struct {
		name string
		man  []fileEntry
		want string
	}{
		{"dot-dot", []fileEntry{{Path: "../evil", Type: typeFile, Mode: 0o644, Size: 4}}, "escapes"},
		{"nested dot-dot", []fileEntry{{Path: "a/../../evil", Type: typeFile, Mode: 0o644, Size: 4}}, "escapes"},
		{"absolute", []fileEntry{{Path: "/tmp/evil", Type: typeFile, Mode: 0o644, Size: 4}}, "escapes"},
		{"through a symlink", []fileEntry{
			{Path: "out", Type: typeSymlink, Target: ".."},
			{Path: "out/evil", Type: typeFile, Mode: 0o644, Size: 4},
		}, "lies under"},
		{"symlink escape", []fileEntry{{Path: "../link", Type: typeSymlink, Target: "x"}}, "escapes"},
		{"duplicate", []fileEntry{
			{Path: "a", Type: typeFile, Mode: 0o644, Size: 2},
			{Path: "a", Type: typeFile, Mode: 0o644, Size: 2},
		}, "twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			open := func(fileEntry) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("evil")), nil }
			if _, err := s.write(context.Background(), meta(key1), tc.man, nil, open); err != nil {
				t.Fatal(err)
			}
			h, err := s.Get(key1)
			if err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			root := filepath.Join(parent, "a", "ws")
			os.MkdirAll(root, 0o755)
			_, err = h.Restore(root)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore = %v, want ErrCorrupt saying %q", err, tc.want)
			}
			if got := readTree(t, parent); len(got) != 0 {
				t.Errorf("refused restore wrote %v", got)
			}
		})
	}

	t.Run("existing symlink in root", func(t *testing.T) {
		s := openStore(t)
		src := t.TempDir()
		files := writeTree(t, src, map[string]node{"out/x": {content: "x", mode: 0o644}})
		if _, err := s.Put(context.Background(), meta(key1), src, files, nil); err != nil {
			t.Fatal(err)
		}
		outside := t.TempDir()
		root := t.TempDir()
		os.Symlink(outside, filepath.Join(root, "out"))
		h, err := s.Get(key1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Restore(root); err == nil {
			t.Error("Restore wrote through a symlink leading out of root")
		}
		if got := readTree(t, outside); len(got) != 0 {
			t.Errorf("Restore wrote outside root: %v", got)
		}
	})
}

// failAfter fails every write once n bytes have gone through, as a full disk does.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, syscall.ENOSPC
	}
	f.n -= len(p)
	return f.w.Write(p)
}

func TestPutFailureLeavesNothing(t *testing.T) {
	for _, after := range []int{0, 10, prefixSize + 5, 2000, 70000} {
		t.Run(fmt.Sprint("after ", after), func(t *testing.T) {
			s := openStore(t)
			src := t.TempDir()
			files := writeTree(t, src, map[string]node{
				"a.bin": {content: randomString(200 << 10), mode: 0o644},
				"b.txt": {content: "b", mode: 0o644},
			})
			// An older good entry must survive a failed replacement.
			writeTree(t, src, map[string]node{"old": {content: "old", mode: 0o644}})
			if _, err := s.Put(context.Background(), meta(key1), src, []string{"old"}, nil); err != nil {
				t.Fatal(err)
			}
			s.wrapTemp = func(w io.Writer) io.Writer { return &failAfter{w: w, n: after} }
			_, err := s.Put(context.Background(), meta(key1), src, files, []byte("log"))
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "web#build") {
				t.Fatalf("Put = %v, want ENOSPC naming the task", err)
			}
			assertNoTemps(t, s.dir)
			h, err := s.Get(key1)
			if err != nil || h.Files != 1 {
				t.Fatalf("old entry after failed Put: %v, %v", h, err)
			}
		})
	}

	t.Run("read-only directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root ignores directory permissions")
		}
		s := openStore(t)
		src := t.TempDir()
		files := writeTree(t, src, map[string]node{"a": {content: "a", mode: 0o644}})
		shard := filepath.Join(s.dir, key1[:2])
		os.MkdirAll(shard, 0o755)
		os.Chmod(shard, 0o555)
		t.Cleanup(func() { os.Chmod(shard, 0o755) })
		if _, err := s.Put(context.Background(), meta(key1), src, files, nil); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("Put = %v, want a permission error", err)
		}
		assertNoTemps(t, s.dir)
	})

	t.Run("canceled", func(t *testing.T) {
		s := openStore(t)
		src := t.TempDir()
		files := writeTree(t, src, map[string]node{"a": {content: "a", mode: 0o644}})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Put(ctx, meta(key1), src, files, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("Put = %v, want context.Canceled", err)
		}
		assertNoTemps(t, s.dir)
	})
}

func TestPutRefusals(t *testing.T) {
	s := openStore(t)
	src := t.TempDir()
	writeTree(t, src, map[string]node{"a": {content: "a", mode: 0o644}})
	hasFifo := mkfifo(t, filepath.Join(src, "fifo"))
	tests := []struct {
		name  string
		key   string
		files []string
		want  string
	}{
		{"missing output", key1, []string{"nope"}, "no such file"},
		{"fifo", key1, []string{"fifo"}, "only regular files and symlinks"},
		{"bad key", "../../etc", []string{"a"}, "invalid cache key"},
		{"upper-case key", "ABCDEF12", []string{"a"}, "invalid cache key"},
		{"short key", "ab", []string{"a"}, "invalid cache key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "fifo" && !hasFifo {
				t.Skip("this OS has no FIFO in its file system")
			}
			m := meta(tc.key)
			if _, err := s.Put(context.Background(), m, src, tc.files, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Put = %v, want an error saying %q", err, tc.want)
			}
		})
	}
	for _, k := range []string{"", "ab/cd1234", "..", "abcd\\1234"} {
		if _, err := s.Get(k); err == nil || errors.Is(err, ErrMiss) || !strings.Contains(err.Error(), "invalid cache key") {
			t.Errorf("Get(%q) = %v, want an invalid key error", k, err)
		}
	}
	if _, err := s.Get("abcdef12"); !errors.Is(err, ErrMiss) {
		t.Errorf("Get(absent) = %v, want ErrMiss", err)
	}
}

func TestReadOnlyMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".vx", "cache")
	s, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats("")
	if err != nil || st != (Stats{}) {
		t.Errorf("Stats = %+v, %v; want empty", st, err)
	}
	if _, err := s.Get(key1); !errors.Is(err, ErrMiss) {
		t.Errorf("Get = %v, want ErrMiss", err)
	}
	if _, err := s.Latest("web#build"); !errors.Is(err, ErrMiss) {
		t.Errorf("Latest = %v, want ErrMiss", err)
	}
	if res, err := s.Prune(context.Background(), PruneOptions{MaxSize: 1, DryRun: true}); err != nil || res.Entries != 0 || len(res.Evicted) != 0 {
		t.Errorf("dry Prune = %+v, %v", res, err)
	}
	if _, err := s.Prune(context.Background(), PruneOptions{MaxSize: 1}); !errors.Is(err, errReadOnly) {
		t.Errorf("Prune = %v, want errReadOnly", err)
	}
	if _, err := s.Put(context.Background(), meta(key1), t.TempDir(), nil, nil); !errors.Is(err, errReadOnly) {
		t.Errorf("Put = %v, want errReadOnly", err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only Open created %s: %v", filepath.Dir(dir), err)
	}
}

func TestConcurrentPutGet(t *testing.T) {
	s := openStore(t)
	src := t.TempDir()
	files := writeTree(t, src, map[string]node{
		"a": {content: strings.Repeat("a", 100000), mode: 0o644},
		"b": {content: "b", mode: 0o644},
	})
	// A second store on the same directory stands for another process.
	s2, err := Open(s.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		st := []*Store{s, s2}[i%2]
		wg.Go(func() {
			for range 10 {
				if _, err := st.Put(context.Background(), meta(key1), src, files, []byte("log")); err != nil {
					t.Error(err)
				}
				h, err := st.Get(key1)
				if err != nil {
					t.Error(err)
					continue
				}
				if _, err := h.Restore(t.TempDir()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	assertNoTemps(t, s.dir)
}

func TestLogIsBytesExact(t *testing.T) {
	s := openStore(t)
	log := []byte("\x1b[31mred\x1b[0m\r\nbinary \x00\xff\n***")
	if _, err := s.Put(context.Background(), meta(key1), t.TempDir(), nil, log); err != nil {
		t.Fatal(err)
	}
	h, err := s.Get(key1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Log()
	if err != nil || !bytes.Equal(got, log) {
		t.Errorf("Log() = %q, %v; want %q", got, err, log)
	}
	if files, err := h.Restore(t.TempDir()); err != nil || len(files) != 0 {
		t.Errorf("Restore of an entry without outputs = %q, %v", files, err)
	}
}

func TestPutRenameFailureLeavesNoTemp(t *testing.T) {
	s := openStore(t)
	// A directory squatting on the entry's name makes the final rename fail
	// after everything else succeeded.
	if err := os.MkdirAll(filepath.Join(s.entryPath(key1), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(context.Background(), meta(key1), t.TempDir(), nil, []byte("log")); err == nil {
		t.Fatal("Put succeeded over a directory")
	}
	assertNoTemps(t, s.dir)
}
