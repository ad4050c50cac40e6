package hashing_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// journal answers as vxd would, and records what it was asked.
type journal struct {
	root      string
	ans       wire.Changes
	askEpoch  string
	askSeq    uint64
	questions int
}

func (j *journal) source(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
	j.askEpoch, j.askSeq = epoch, seq
	j.questions++
	a := j.ans
	a.Root, a.Version = j.root, version.Version
	return &a, nil
}

// hashAll opens the changes, hashes the files through them and saves.
func hashAll(t *testing.T, root string, j *journal, names ...string) map[string]string {
	t.Helper()
	c, _ := hashing.OpenChanges(context.Background(), root, j.source)
	h := hashing.NewHasher("")
	h.UseChanges(c)
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
	j := &journal{root: root, ans: wire.Changes{Epoch: "e1", Seq: 5, Reason: "no token was given"}}
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
	if c, how := hashing.OpenChanges(context.Background(), root, other); c != nil {
		t.Fatalf("a vxd of another version was used: %s", how)
	}
}

// The saved listing is taken from the journal only when the last run
// validated that very file, and then without the stat of a directory the
// journal proves unchanged.
func TestChangesListing(t *testing.T) {
	defer hashing.SetRacyWindow(30 * time.Millisecond)()
	repo := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(repo))
	write(t, filepath.Join(repo, "src", "a.ts"), "a", time.Time{})
	write(t, filepath.Join(repo, ".gitignore"), ".vx/\n", time.Time{})
	if err := os.MkdirAll(filepath.Join(repo, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "init")
	time.Sleep(80 * time.Millisecond)
	j := &journal{root: repo, ans: wire.Changes{Epoch: "e1", Seq: 1, Reason: "no token"}}
	ctx := context.Background()
	list := func() []string {
		c, _ := hashing.OpenChanges(ctx, repo, j.source)
		files, err := c.ListFiles(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		return files
	}
	first := list() // saves the listing
	time.Sleep(80 * time.Millisecond)
	list() // reuses it: valid at the token
	// A new file in src, of which the journal says nothing (as if missed):
	// the directory's stat is not looked at, so the saved listing stands.
	write(t, filepath.Join(repo, "src", "b.ts"), "b", time.Time{})
	j.ans = wire.Changes{Epoch: "e1", Seq: 1, Complete: true}
	if got := list(); len(got) != len(first) {
		t.Fatalf("proven unchanged, the listing is the saved one: %v", got)
	}
	// The journal reports the directory: listed again.
	j.ans = wire.Changes{Epoch: "e1", Seq: 2, Complete: true, Changed: []string{"src", "src/b.ts"}}
	if got := list(); len(got) != len(first)+1 {
		t.Fatalf("after the journal reported src: %v, want b.ts too", got)
	}
}
