package cache

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// smallOutput is a typical small build output: 10 files, about 5 KB.
func smallOutput(b *testing.B) (root string, files []string) {
	root = b.TempDir()
	tree := map[string]node{}
	for i := range 10 {
		tree[fmt.Sprintf("dist/chunk-%d/index.js", i)] = node{
			content: strings.Repeat(fmt.Sprintf("export const v%d = %d;\n", i, i), 22),
			mode:    0o644,
		}
	}
	return root, writeTree(b, root, tree)
}

func BenchmarkPut(b *testing.B) {
	s := openStore(b)
	root, files := smallOutput(b)
	log := []byte(strings.Repeat("compiled 10 files\n", 20))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Put(context.Background(), meta(key1), root, files, log); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetRestore(b *testing.B) {
	s := openStore(b)
	root, files := smallOutput(b)
	if _, err := s.Put(context.Background(), meta(key1), root, files, []byte("log")); err != nil {
		b.Fatal(err)
	}
	dst := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		h, err := s.Get(key1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Restore(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStats10k measures a header scan of a cache of 10,000 entries,
// which Stats, Latest and Prune all do.
func BenchmarkStats10k(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "cache"), nil)
	if err != nil {
		b.Fatal(err)
	}
	s.noSync = true
	root, files := smallOutput(b)
	for i := range 10000 {
		m := meta(fmt.Sprintf("%032x", i*7919))
		if _, err := s.Put(context.Background(), m, root, files, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		st, err := s.Stats("")
		if err != nil || st.Entries != 10000 {
			b.Fatal(st, err)
		}
	}
}
