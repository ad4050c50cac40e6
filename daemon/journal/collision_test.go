package journal

import (
	"fmt"
	"path/filepath"
	"testing"
)

// The proven hashes are found by a hash of the path, but a path's bytes
// decide: when every path hashes alike, each still answers its own hash,
// a path never saved answers nothing, and a changed one is neither
// answered nor saved again while its neighbours are.
func TestACollidingPathNeverAnswersAnothersHash(t *testing.T) {
	for _, h := range []struct {
		name        string
		mask, force uint64
	}{
		{"the whole hash", 0, 7},
		{"the top bits", 1<<32 - 1, 7 << 32},
	} {
		t.Run(h.name, func(t *testing.T) {
			defer func(m, f uint64) { hashMask, hashForce = m, f }(hashMask, hashForce)
			hashMask, hashForce = h.mask, h.force
			root := t.TempDir()
			path := filepath.Join(root, "journal")
			var read []entry
			for i := range 9 {
				read = append(read, entry{fmt.Sprintf("p/%d", i), fmt.Sprintf("hash%d", i)})
			}
			if err := saveJournal(path, root, &journalState{epoch: "e1", seq: 1}, read); err != nil {
				t.Fatal(err)
			}
			st := loadJournal(path, root)
			if st == nil {
				t.Fatal("the saved state was refused")
			}
			check := func(st *journalState, gone string) {
				t.Helper()
				for _, e := range read {
					got, ok := st.proven.hash(e.path)
					if e.path == gone {
						if ok {
							t.Errorf("%s changed and still answers %q", gone, got)
						}
						continue
					}
					if !ok || got != e.hash {
						t.Errorf("%s answers %q, %v; want %q", e.path, got, ok, e.hash)
					}
				}
				for _, p := range []string{"p/9", "p/", "p/10", "q/1"} {
					if got, ok := st.proven.hash(p); ok {
						t.Errorf("%s, never saved, answers %q", p, got)
					}
				}
			}
			check(st, "")
			if !st.proven.remove("p/4") || st.proven.remove("p/4") || st.proven.remove("p/9") {
				t.Error("remove reports what it did not drop, or misses what it did")
			}
			check(st, "p/4")
			if err := saveJournal(path, root, &journalState{epoch: "e1", seq: 2, proven: st.proven}, nil); err != nil {
				t.Fatal(err)
			}
			again := loadJournal(path, root)
			if again == nil || again.proven.live() != len(read)-1 {
				t.Fatalf("the state saved after a removal: %+v", again)
			}
			check(again, "p/4")
		})
	}
}
