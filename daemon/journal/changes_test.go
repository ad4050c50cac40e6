package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// fakeVXD answers as vxd would, and records what it was asked.
type fakeVXD struct {
	root      string
	ans       wire.Changes
	askEpoch  string
	askSeq    uint64
	questions int
}

func (j *fakeVXD) source(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
	j.askEpoch, j.askSeq = epoch, seq
	j.questions++
	a := j.ans
	a.Root, a.Version = j.root, version.Version
	return &a, nil
}

// hashAll opens the changes, hashes the files through them and saves.
func hashAll(t *testing.T, root string, j *fakeVXD, names ...string) map[string]string {
	t.Helper()
	c, _ := journal.OpenChanges(context.Background(), root, j.source)
	h := hashing.NewHasher("")
	c.Attach(h)
	out := map[string]string{}
	for _, n := range names {
		sum, err := h.HashFile(filepath.Join(root, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = sum
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	return out
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	var st hashing.Stat
	if err := hashing.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// A hash is taken without a stat only when the journal proves its path
// unchanged since the token it was read after; a file with two links, a
// path the journal lists, another epoch and another version are read.
func TestChangesTrustOnlyWhatTheJournalProves(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte("old "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "c"), filepath.Join(root, "c2")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 5, Reason: "no token was given"}}
	first := hashAll(t, root, j, "a", "b", "c")
	if j.askEpoch != "" {
		t.Fatalf("with no saved state the question carries no token, got epoch %q", j.askEpoch)
	}
	// Behind the journal's back (as if inotify had missed them): the
	// saved hashes are what a proven path answers, which shows no stat.
	for _, n := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte("new content "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j.ans = wire.Changes{Epoch: "e1", Seq: 7, Complete: true, Changed: []string{"b"}}
	second := hashAll(t, root, j, "a", "b", "c")
	if j.askEpoch != "e1" || j.askSeq != 5 {
		t.Fatalf("asked since %s/%d, want e1/5 (the saved token)", j.askEpoch, j.askSeq)
	}
	if second["a"] != first["a"] {
		t.Error("a, proven unchanged, was read again")
	}
	if second["b"] == first["b"] {
		t.Error("b, which the journal lists as changed, was not read again")
	}
	if second["c"] == first["c"] {
		t.Error("c has two links and was taken from the journal")
	}

	// Nothing changed since: nothing is written.
	state := filepath.Join(root, ".vx", "journal")
	before := inode(t, state)
	j.ans = wire.Changes{Epoch: "e1", Seq: 7, Complete: true}
	hashAll(t, root, j, "a", "b")
	if inode(t, state) != before {
		t.Error("a run that read nothing rewrote the journal state")
	}

	// Another epoch: everything is read.
	j.ans = wire.Changes{Epoch: "e2", Seq: 1, Reason: "the journal began a new epoch"}
	third := hashAll(t, root, j, "a")
	if third["a"] == first["a"] {
		t.Error("after a new epoch a was not read again")
	}
	if j.askEpoch != "e1" || j.askSeq != 7 {
		t.Fatalf("asked since %s/%d, want e1/7", j.askEpoch, j.askSeq)
	}

	// Another version of vxd: not used at all.
	other := func(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
		return &wire.Changes{Root: root, Version: version.Version + "-other", Epoch: "e2", Seq: 1, Complete: true}, nil
	}
	if c, how := journal.OpenChanges(context.Background(), root, other); c != nil {
		t.Fatalf("a vxd of another version was used: %s", how)
	}
}

// A run that hears of a change keeps every other proven hash for the next
// run and drops the changed path's, whether or not it reads the path
// again; what it does read is what the next run is given.
func TestAChangedPathIsNeverProvenWithItsOldHash(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(content string, names ...string) {
		t.Helper()
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(root, n), []byte(content+n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("one ", "a", "b", "c")
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 1, Reason: "no token was given"}}
	first := hashAll(t, root, j, "a", "b", "c")
	// Behind the journal's back (a proven path answers its saved hash):
	// the run told of b's change reads only c, which did not change.
	write("two ", "a", "b", "c")
	j.ans = wire.Changes{Epoch: "e1", Seq: 2, Complete: true, Changed: []string{"b"}}
	hashAll(t, root, j, "c")
	j.ans = wire.Changes{Epoch: "e1", Seq: 2, Complete: true}
	third := hashAll(t, root, j, "a", "b", "c")
	if third["a"] != first["a"] || third["c"] != first["c"] {
		t.Error("a run that heard of b's change lost the proven hashes of a and c")
	}
	if third["b"] == first["b"] {
		t.Error("b changed, and its old hash was proven two runs later")
	}
	write("three ", "b")
	j.ans = wire.Changes{Epoch: "e1", Seq: 2, Complete: true}
	if fourth := hashAll(t, root, j, "b"); fourth["b"] != third["b"] {
		t.Error("the hash b was read as was not saved for the next run")
	}
}

// A run asks for its inputs by project directory and name (Hasher's
// ProvenHash, no absolute path made): the answer is the one its
// workspace path has, whatever the directory's depth or length, and
// nothing for a path the journal does not prove.
func TestAFileIsProvenByItsDirectoryAndName(t *testing.T) {
	root := t.TempDir()
	long := filepath.Join(strings.Repeat("d", 200), strings.Repeat("e", 200), strings.Repeat("f", 200))
	files := []string{"top", "sub/x", "sub/deep/y", filepath.ToSlash(long) + "/z"}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 1, Reason: "no token was given"}}
	saved := hashAll(t, root, j, files...)
	proven := func(changed ...string) *hashing.Hasher {
		j.ans = wire.Changes{Epoch: "e1", Seq: 1, Complete: true, Changed: changed}
		c, _ := journal.OpenChanges(context.Background(), root, j.source)
		h := hashing.NewHasher("")
		c.Attach(h)
		return h
	}
	h := proven()
	for _, q := range []struct{ dir, name, file string }{
		{"", "top", "top"}, {".", "top", "top"}, {"sub", "x", "sub/x"}, {"", "sub/x", "sub/x"},
		{"sub", "deep/y", "sub/deep/y"}, {"sub/deep", "y", "sub/deep/y"},
		{filepath.ToSlash(long), "z", filepath.ToSlash(long) + "/z"},
	} {
		if got, ok := h.ProvenHash(q.dir, q.name); !ok || got != saved[q.file] {
			t.Errorf("%q in %q: %q, %v; want %s's hash", q.name, q.dir, got, ok, q.file)
		}
	}
	for _, q := range [][2]string{{"sub", "y"}, {"su", "b/x"}, {"sub/", "x"}, {"top", ""}, {"sub", "deep"}} {
		if got, ok := h.ProvenHash(q[0], q[1]); ok {
			t.Errorf("%q in %q, never read, answers %q", q[1], q[0], got)
		}
	}
	if got, ok := proven("sub/x").ProvenHash("sub", "x"); ok {
		t.Errorf("sub/x changed and answers %q", got)
	}
	if _, ok := hashing.NewHasher("").ProvenHash("", "top"); ok {
		t.Error("a Hasher without the journal's answer proves a file")
	}
}

// A file read twice in one run (two tasks' inputs) is saved once: the
// next run still takes the state, and the file from it.
func TestAFileReadTwiceIsSavedOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(root, "a")
	if err := os.WriteFile(a, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 1, Reason: "no token was given"}}
	first := hashAll(t, root, j, "a", "a")
	if err := os.WriteFile(a, []byte("two, behind the journal's back"), 0o644); err != nil {
		t.Fatal(err)
	}
	j.ans = wire.Changes{Epoch: "e1", Seq: 1, Complete: true}
	if second := hashAll(t, root, j, "a"); second["a"] != first["a"] {
		t.Error("the state saved by a run that read a twice was not taken")
	}
}
