package journal_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// seqVXD is a fake vxd that numbers every change it is told of and
// answers, for a token of its epoch, exactly the paths changed after it.
type seqVXD struct {
	root  string
	mu    sync.Mutex
	epoch string
	seq   uint64
	log   []string // log[i] changed at seq i+1
}

func (j *seqVXD) changed(rel string) {
	j.mu.Lock()
	j.seq++
	j.log = append(j.log, rel)
	j.mu.Unlock()
}

func (j *seqVXD) source(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	a := &wire.Changes{Version: version.Version, Root: j.root, Epoch: j.epoch, Seq: j.seq}
	if epoch != j.epoch || seq > j.seq {
		a.Reason = "another epoch"
		return a, nil
	}
	a.Complete = true
	seen := map[string]bool{}
	for _, p := range j.log[seq:] {
		if !seen[p] {
			seen[p] = true
			a.Changed = append(a.Changed, p)
		}
	}
	return a, nil
}

// trickyNames are files whose paths sort next to each other with '/',
// '-', '.', '0' and '_', differ only in case, in unicode normalisation,
// hold a backslash, or sit under a directory longer than the lookup's
// stack buffer.
// Those this file system takes for a name already there (case or
// normalisation insensitive, or '\\' a separator) are left out.
func trickyNames(t *testing.T) []string {
	long := strings.Repeat("l", 250) + "/" + strings.Repeat("m", 250) + "/" + strings.Repeat("n", 40)
	probe := t.TempDir()
	var out []string
	for _, n := range []string{
		"a", "a-b", "a.b", "a0", "a_", "A", "ab",
		"p/q0", "p-q", "p.q", "p/q-r", "p/q.r", "p/q/r", "p/q/r-s", "p/q/r.s", "p/qr",
		"\u00e9", "e\u0301", "p/\u00e9/x", "p/e\u0301/x",
		`b\c`, "b/c", "b/c.d",
		long + "/f", long + "/f.g", long + "-f",
	} {
		p := filepath.Join(probe, filepath.FromSlash(n))
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil && os.WriteFile(p, nil, 0o644) == nil {
			out = append(out, n)
		}
	}
	return out
}

// TestEveryProofMatchesTheFileAcrossRandomEditsAndRuns: across random
// edits, removals, runs that read some files (some twice, some by
// directory and name, some by absolute path), edits made during a run (after its reads),
// two runs at once saving in either order, and a state cut short, every
// hash a run takes is the file's content at the time it is asked for.
func TestEveryProofMatchesTheFileAcrossRandomEditsAndRuns(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { proofsFollowEdits(t, seed, t.TempDir(), true) })
	}
	// The root named with a trailing separator proves nothing (and so
	// nothing wrong); through a symbolic link it proves as any root.
	t.Run("trailing separator", func(t *testing.T) {
		proofsFollowEdits(t, 7, t.TempDir()+string(filepath.Separator), false)
	})
	t.Run("symbolic link", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
			t.Skipf("no symbolic link: %v", err)
		}
		proofsFollowEdits(t, 8, filepath.Join(dir, "link"), true)
	})
}

func proofsFollowEdits(t *testing.T, seed uint64, root string, wantProofs bool) {
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	names := trickyNames(t)
	j := &seqVXD{root: root, epoch: "e1"}
	gen, proofs := 0, 0
	write := func(n string) {
		gen++
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("%s generation %d", n, gen)), 0o644); err != nil {
			t.Fatal(err)
		}
		j.changed(n)
	}
	for _, n := range names {
		write(n)
	}
	exists := map[string]bool{}
	for _, n := range names {
		exists[n] = true
	}
	mutate := func() {
		n := names[rng.IntN(len(names))]
		if exists[n] && rng.IntN(5) == 0 {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(n))); err != nil {
				t.Fatal(err)
			}
			exists[n] = false
			j.changed(n)
			return
		}
		write(n)
		exists[n] = true
	}
	// check hashes some existing files through c as the runner does and
	// compares each with a fresh read of the file.
	check := func(step int, c *journal.Changes) {
		h := hashing.NewHasher("")
		c.Attach(h)
		for _, n := range names {
			if !exists[n] || rng.IntN(3) == 0 {
				continue
			}
			for range 1 + rng.IntN(2) {
				want, err := hashing.NewHasher("").HashFile(filepath.Join(root, filepath.FromSlash(n)))
				if err != nil {
					t.Fatal(err)
				}
				got, how := "", ""
				dir, name := "", n
				if i := strings.LastIndex(n, "/"); i >= 0 && rng.IntN(2) == 0 {
					dir, name = n[:i], n[i+1:]
				}
				if rng.IntN(4) == 0 {
					got, err = h.HashFile(filepath.Join(root, filepath.FromSlash(n)))
					how = "by absolute path"
				} else if s, ok := h.ProvenHash(dir, name); ok {
					got, how = s, "proven by "+dir+" and "+name
					proofs++
				} else {
					got, err = h.HashFile(filepath.Join(root, filepath.FromSlash(n)))
					how = "read"
				}
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("step %d: %s answered a stale hash (%s)", step, n, how)
				}
			}
		}
	}
	for step := 0; step < 150; step++ {
		for range rng.IntN(4) {
			mutate()
		}
		switch rng.IntN(6) {
		case 0: // two runs at once, saving in either order
			c1, _ := journal.OpenChanges(context.Background(), root, j.source)
			check(step, c1)
			mutate()
			c2, _ := journal.OpenChanges(context.Background(), root, j.source)
			check(step, c2)
			mutate()
			first, second := c1, c2
			if rng.IntN(2) == 0 {
				first, second = c2, c1
			}
			if err := first.Save(); err != nil {
				t.Fatal(err)
			}
			if err := second.Save(); err != nil {
				t.Fatal(err)
			}
		case 1: // a state cut short
			p := filepath.Join(root, ".vx", "journal")
			if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
				if err := os.WriteFile(p, b[:rng.IntN(len(b))], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fallthrough
		default: // a run, with an edit during it
			c, _ := journal.OpenChanges(context.Background(), root, j.source)
			check(step, c)
			if rng.IntN(3) == 0 {
				mutate()
			}
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if wantProofs && proofs == 0 {
		t.Fatal("no run took a hash from the journal: the test proves nothing")
	}
}

// TestThousandsOfChangedPathsAreNeverProven: a state of 5,000 files (many
// index batches, names of every length), a third of them edited: the next
// run proves each other file with its own hash and none edited, and the
// run after it proves every file with its new hash.
func TestThousandsOfChangedPathsAreNeverProven(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	j := &seqVXD{root: root, epoch: "e1"}
	var names []string
	for i := range 5000 {
		n := fmt.Sprintf("d%d/%s%d", i%37, strings.Repeat("x", i%23), i)
		if i%5 == 0 {
			n = fmt.Sprintf("d%d-%d", i%37, i) // sorts between d3/… and d30/…
		}
		names = append(names, n)
	}
	write := func(n, content string) {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		j.changed(n)
	}
	for _, n := range names {
		write(n, "first "+n)
	}
	run := func(what string, wantProven int) {
		t.Helper()
		c, _ := journal.OpenChanges(context.Background(), root, j.source)
		h := hashing.NewHasher("")
		c.Attach(h)
		proven := 0
		for _, n := range names {
			want, err := hashing.NewHasher("").HashFile(filepath.Join(root, filepath.FromSlash(n)))
			if err != nil {
				t.Fatal(err)
			}
			dir, name := "", n
			if i := strings.LastIndex(n, "/"); i >= 0 {
				dir, name = n[:i], n[i+1:]
			}
			got, ok := h.ProvenHash(dir, name)
			if !ok {
				got, err = h.HashFile(filepath.Join(root, filepath.FromSlash(n)))
				if err != nil {
					t.Fatal(err)
				}
			} else {
				proven++
			}
			if got != want {
				t.Fatalf("%s: %s answered a stale hash (proven: %v)", what, n, ok)
			}
		}
		if proven != wantProven {
			t.Fatalf("%s: %d files proven, want %d", what, proven, wantProven)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
	}
	run("the first run", 0)
	run("a run with nothing changed", len(names))
	edited := 0
	for i, n := range names {
		if i%3 == 1 {
			write(n, "second "+n)
			edited++
		}
	}
	run("the run after the edits", len(names)-edited)
	run("the run after that", len(names))
}
