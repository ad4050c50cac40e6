package remotecache_test

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func itoa(n int) string { return strconv.Itoa(n) }

func flipLastByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-20] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// entryLog decodes the log section of a vx cache entry (docs/cache.md:
// a 40-byte prefix with the meta and log lengths, the meta, then the
// log's zstd frame).
func entryLog(t *testing.T, b []byte) string {
	t.Helper()
	if len(b) < 40 || string(b[:8]) != "vxcache\x00" {
		t.Fatalf("not a vx cache entry (%d bytes)", len(b))
	}
	metaLen := int(binary.LittleEndian.Uint32(b[12:]))
	logLen := int(binary.LittleEndian.Uint64(b[16:]))
	if logLen == 0 {
		return ""
	}
	d, _ := zstd.NewReader(nil)
	defer d.Close()
	out, err := d.DecodeAll(b[40+metaLen:40+metaLen+logLen], nil)
	if err != nil {
		t.Fatalf("decoding the entry's log: %v", err)
	}
	return string(out)
}

// grepTree fails if any file under dir holds s.
func grepTree(t *testing.T, dir, s string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			t.Errorf("%s holds %q in clear", p, s)
		}
		return nil
	})
}
