package hashing

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStatCacheHeldAsRead: a loaded stat cache costs the file's bytes and
// 8 bytes a record (its offset and its early-stat mark), not a decoded
// copy of each record (64 bytes more each: 7 MB at 110,000 records); its
// records read back as written; and Release drops them, after which Save
// writes nothing.
func TestStatCacheHeldAsRead(t *testing.T) {
	const n = 20000
	path := filepath.Join(t.TempDir(), "statcache")
	b := []byte(statCacheMagic)
	for i := range n {
		name := fmt.Sprintf("/ws/packages/pkg-%05d/src/file.js", i)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
		b = append(b, name...)
		for _, v := range []uint64{uint64(i), uint64(2 * i), uint64(3 * i), uint64(4 * i)} {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		var sum [16]byte
		sum[0], sum[15] = byte(i), byte(i>>8)
		b = append(b, sum[:]...)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := NewHasher(path)
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(len(b))+8*n+64<<10; got > limit {
		t.Errorf("loading %d records of a %d-byte cache allocated %d bytes, want at most %d", n, len(b), got, limit)
	}
	if got := h.pre.len(); got != n {
		t.Fatalf("%d records loaded, want %d", got, n)
	}
	i := 12345
	if name := h.pre.name(i); name != fmt.Sprintf("/ws/packages/pkg-%05d/src/file.js", i) {
		t.Errorf("record %d's name %q", i, name)
	}
	if k := h.pre.key(i); k != (statKey{size: int64(i), mtime: int64(2 * i), ino: uint64(3 * i), ctime: int64(4 * i)}) {
		t.Errorf("record %d's stat %+v", i, k)
	}
	if sum := h.pre.hash(i); sum[0] != byte(i) || sum[15] != byte(i>>8) {
		t.Errorf("record %d's hash %x", i, sum)
	}
	h.dirty = true
	h.Release()
	if h.pre.len() != 0 || h.RecordPath(int32(i)) != "" {
		t.Errorf("Release kept %d records", h.pre.len())
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); len(got) != len(b) {
		t.Errorf("Save after Release rewrote the cache: %d bytes, was %d", len(got), len(b))
	}
}

// TestStatCacheOverOffsetsNotRead: a cache file too big for the records'
// 32-bit offsets (here a sparse one) is neither read nor wrapped: no
// record is loaded, and loading it allocates nothing like its size.
func TestStatCacheOverOffsetsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "statcache")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(statCacheMagic); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(len(statCacheMagic)) + 1<<32 + 1); err != nil {
		f.Close()
		t.Skipf("no sparse file of 4 GiB here: %v", err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := NewHasher(path)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("loading a %d-byte cache allocated %d bytes: it was read", int64(len(statCacheMagic))+1<<32+1, got)
	}
	if n := h.pre.len(); n != 0 {
		t.Errorf("%d records loaded from a cache past the offsets' range", n)
	}
}
