package hashing_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	j := &fakeVXD{root: repo, ans: wire.Changes{Epoch: "e1", Seq: 1, Reason: "no token"}}
	ctx := context.Background()
	list := func() []string {
		c, _ := journal.OpenChanges(ctx, repo, j.source)
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
