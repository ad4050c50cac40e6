// The saved state's proven hashes (doc.go, "What a run takes from it"),
// kept where the collector does not look.

package journal

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// pathHash is the index's hash of a relative path. hashMask and hashForce
// are for a test to make paths collide (not a function variable: a path
// made on the stack would escape through it).
func pathHash(path string) uint64 { return xxh3.HashString(path)&hashMask | hashForce }

var hashMask, hashForce uint64 = math.MaxUint64, 0

// provenTable is the hashes of a saved state: its entries as the state
// file holds them (each a path and its hash, both after their length,
// sorted by path) and an open-addressed index of them by path. Neither
// holds a pointer, so the collector never scans them (a map of 110,000
// strings was marked in every cycle of a run at 10,000 packages), and a
// hash is answered as a substring of the file's bytes, without a copy.
type provenTable struct {
	ents string // the entries: the file's bytes, never written
	n    int
	// slots holds each entry as the top 32 bits of its path's hash and its
	// offset in ents plus one (0 is an empty slot); at most half are full,
	// so every probe ends.
	slots []uint64
	// removed are the offsets of the entries whose paths changed since
	// the state's token: never answered, never saved again.
	removed map[uint32]bool
}

// newProvenTable indexes the n entries ents holds (a slice of the state
// file, which nothing writes once read); nil when they are malformed, not
// n, or not in strictly increasing order of path (so no path is there
// twice): no state vx writes is.
func newProvenTable(ents []byte, n int) *provenTable {
	if len(ents) >= math.MaxUint32 || n > len(ents) {
		return nil
	}
	t := &provenTable{ents: unsafe.String(unsafe.SliceData(ents), len(ents)), n: n}
	size := 2
	for size < 2*n {
		size *= 2
	}
	t.slots = make([]uint64, size)
	// Hashed a batch at a time, then placed: the slots' cache misses of
	// a batch overlap rather than wait on each entry's decoding.
	var batch [64]struct {
		h   uint64
		off uint32
	}
	off, last := 0, ""
	for i := 0; i < n; {
		k := 0
		for ; k < len(batch) && i < n; k, i = k+1, i+1 {
			path, _, next, ok := t.entryAt(off)
			if !ok || (i > 0 && path <= last) {
				return nil
			}
			batch[k].h, batch[k].off = pathHash(path), uint32(off)
			off, last = next, path
		}
		for _, e := range batch[:k] {
			t.place(e.h, e.off)
		}
	}
	if off != len(t.ents) {
		return nil
	}
	return t
}

// entryAt decodes the entry at off: its path, its hash and the offset
// after it; false when it runs past the end or a length is malformed.
func (t *provenTable) entryAt(off int) (path, hash string, next int, ok bool) {
	path, off, ok = t.strAt(off)
	if !ok {
		return "", "", 0, false
	}
	hash, off, ok = t.strAt(off)
	return path, hash, off, ok
}

// strAt decodes the length-prefixed string at off.
func (t *provenTable) strAt(off int) (string, int, bool) {
	var n uint64
	for shift := 0; ; shift += 7 {
		if off >= len(t.ents) || shift > 28 {
			return "", 0, false
		}
		b := t.ents[off]
		off++
		n |= uint64(b&0x7f) << shift
		if b < 0x80 {
			break
		}
	}
	if n > uint64(len(t.ents)-off) {
		return "", 0, false
	}
	return t.ents[off : off+int(n)], off + int(n), true
}

// place indexes the entry at off, whose path hashes to h and is not
// indexed yet.
func (t *provenTable) place(h uint64, off uint32) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = h&^math.MaxUint32 | uint64(off+1)
}

// find is the offset of path's entry, unless it was removed.
func (t *provenTable) find(path string) (uint32, bool) {
	if t == nil {
		return 0, false
	}
	h := pathHash(path)
	top := h &^ math.MaxUint32
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		// The path's bytes decide: two paths may share the top bits, or
		// the whole hash.
		if off := uint32(s) - 1; s&^math.MaxUint32 == top && t.pathAt(off) == path {
			return off, !t.removed[off]
		}
	}
}

func (t *provenTable) pathAt(off uint32) string {
	path, _, _ := t.strAt(int(off))
	return path
}

// hash is the saved hash of path, unless it changed since; nil answers
// nothing.
func (t *provenTable) hash(path string) (string, bool) {
	off, ok := t.find(path)
	if !ok {
		return "", false
	}
	_, hash, _, _ := t.entryAt(int(off))
	return hash, true
}

// hashIn is hash of the path name in the directory dir ("" or "." for
// the root), joined on the stack: the lookup makes no path.
func (t *provenTable) hashIn(dir, name string) (string, bool) {
	if dir == "" || dir == "." {
		return t.hash(name)
	}
	var buf [512]byte
	path := append(append(append(buf[:0], dir...), '/'), name...)
	return t.hash(unsafe.String(unsafe.SliceData(path), len(path)))
}

// remove drops path's entry (it changed since the token); false when
// there was none to drop.
func (t *provenTable) remove(path string) bool {
	off, ok := t.find(path)
	if !ok {
		return false
	}
	if t.removed == nil {
		t.removed = map[uint32]bool{}
	}
	t.removed[off] = true
	return true
}

// live is how many entries are not removed; 0 for nil.
func (t *provenTable) live() int {
	if t == nil {
		return 0
	}
	return t.n - len(t.removed)
}

// merge is the entries of t not removed merged with read (sorted by
// path; a path in both is read's), in order, and their count: at most
// limit of them in at most budget bytes.
func (t *provenTable) merge(read []entry, limit, budget int) ([]byte, int) {
	size := 0
	if t != nil {
		size = len(t.ents)
	}
	for _, e := range read {
		size += len(e.path) + len(e.hash) + 2*binary.MaxVarintLen32
	}
	out := make([]byte, 0, max(0, min(size, budget)))
	n := 0
	add := func(e []byte) bool {
		if n == limit || len(out)+len(e) > budget {
			return false
		}
		out = append(out, e...)
		n++
		return true
	}
	var enc []byte
	addRead := func(e entry) bool {
		enc = binary.AppendUvarint(enc[:0], uint64(len(e.path)))
		enc = append(enc, e.path...)
		enc = binary.AppendUvarint(enc, uint64(len(e.hash)))
		return add(append(enc, e.hash...))
	}
	for off := 0; t != nil && off < len(t.ents); {
		path, _, next, _ := t.entryAt(off)
		for len(read) > 0 && read[0].path < path {
			if !addRead(read[0]) {
				return out, n
			}
			read = read[1:]
		}
		switch {
		case len(read) > 0 && read[0].path == path:
		case t.removed[uint32(off)]:
		case !add(unsafe.Slice(unsafe.StringData(t.ents[off:next]), next-off)):
			return out, n
		}
		off = next
	}
	for _, e := range read {
		if !addRead(e) {
			break
		}
	}
	return out, n
}
