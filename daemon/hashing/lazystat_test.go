package hashing_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/protocol/wire"
)

// A Hasher made for a run with vxd up reads the stat cache only for a file
// the journal does not prove unchanged: with every input proven it reads
// none of it, and a changed file is still hashed by its content and kept
// in the cache with the records already there.
func TestLazyHasherReadsTheStatCacheOnlyWhenNeeded(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for _, n := range []string{"a", "b"} {
		p := filepath.Join(root, n)
		if err := os.WriteFile(p, []byte("old "+n), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(root, ".vx", "statcache")
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 5, Reason: "no token was given"}}
	hashThrough := func(h *hashing.Hasher, names ...string) map[string]string {
		t.Helper()
		c, _ := journal.OpenChanges(context.Background(), root, j.source)
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
		if err := h.Save(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := hashThrough(hashing.NewHasher(cache), "a", "b")
	if n := hashing.StatCacheRecords(hashing.NewHasher(cache)); n != 2 {
		t.Fatalf("the stat cache holds %d records after the first run; want 2", n)
	}

	// Nothing changed: every hash is the journal's.
	j.ans = wire.Changes{Epoch: "e1", Seq: 5, Complete: true}
	lazy := hashing.NewLazyHasher(cache)
	if got := hashThrough(lazy, "a", "b"); got["a"] != first["a"] || got["b"] != first["b"] {
		t.Fatalf("proven unchanged: %v; want %v", got, first)
	}
	if n := hashing.StatCacheRecords(lazy); n != 0 {
		t.Fatalf("with every file proven the lazy Hasher read %d records of the stat cache; want none", n)
	}

	// b changed: it is read, through the stat cache, and a's record stays.
	if err := os.WriteFile(filepath.Join(root, "b"), []byte("new b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(root, "b"), old, old); err != nil {
		t.Fatal(err)
	}
	j.ans = wire.Changes{Epoch: "e1", Seq: 6, Complete: true, Changed: []string{"b"}}
	lazy = hashing.NewLazyHasher(cache)
	got := hashThrough(lazy, "a", "b")
	if want := hashing.NewHasher("").HashFile; got["a"] != first["a"] || got["b"] == first["b"] {
		t.Fatalf("after b changed: %v (before %v)", got, first)
	} else if sum, err := want(filepath.Join(root, "b")); err != nil || sum != got["b"] {
		t.Fatalf("b hashed %s through the lazy Hasher, %s (%v) afresh", got["b"], sum, err)
	}
	if n := hashing.StatCacheRecords(lazy); n != 2 {
		t.Fatalf("the lazy Hasher read %d records for the changed file; want the cache's 2", n)
	}
	if n := hashing.StatCacheRecords(hashing.NewHasher(cache)); n != 2 {
		t.Fatalf("the stat cache holds %d records after the lazy Hasher saved; want 2", n)
	}
}
