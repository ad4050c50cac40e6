package cache

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"
)

// FormatVersion is the version of the on-disk entry format. An entry written
// in another version reads as corrupt: a miss that the next Put replaces.
const FormatVersion = 1

// An entry file is laid out as
//
//	prefix   40 bytes: magic "vxcache\x00", version u32, metaLen u32,
//	         logLen u64, archiveLen u64, xxh3(meta) u64 (little endian)
//	meta     JSON header (Meta, file count, output bytes)
//	log      zstd frame of the captured log (absent when the log is empty)
//	archive  zstd stream: manifest length u32, manifest JSON, then the
//	         contents of the regular files in manifest order
//	trailer  xxh3 of prefix ‖ xxh3(meta ‖ log ‖ archive), u64
//
// The prefix and meta alone answer Stats, Latest and Prune; the trailer
// covers every byte and is checked before anything is restored.
const (
	magic       = "vxcache\x00"
	prefixSize  = 40
	trailerSize = 8
	entryExt    = ".vxc"
	tempPrefix  = ".tmp-"

	// headerProbe is how much of an entry a header read fetches at once;
	// meta sections are a few hundred bytes, so one read almost always does.
	headerProbe = 1024
	maxMetaSize = 1 << 20
	// maxSection bounds section lengths so that size arithmetic cannot overflow.
	maxSection = 1 << 50
	// maxManifest bounds the manifest a reader will allocate for.
	maxManifest = 256 << 20
)

type prefix struct {
	version    uint32
	metaLen    uint32
	logLen     uint64
	archiveLen uint64
	metaSum    uint64
}

func (p prefix) marshal() []byte {
	b := make([]byte, prefixSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], p.version)
	binary.LittleEndian.PutUint32(b[12:], p.metaLen)
	binary.LittleEndian.PutUint64(b[16:], p.logLen)
	binary.LittleEndian.PutUint64(b[24:], p.archiveLen)
	binary.LittleEndian.PutUint64(b[32:], p.metaSum)
	return b
}

// size is the exact length of an entry file with this prefix.
func (p prefix) size() int64 {
	return prefixSize + int64(p.metaLen) + int64(p.logLen) + int64(p.archiveLen) + trailerSize
}

func (p prefix) logOff() int64     { return prefixSize + int64(p.metaLen) }
func (p prefix) archiveOff() int64 { return p.logOff() + int64(p.logLen) }

func parsePrefix(b []byte) (prefix, error) {
	if len(b) < prefixSize {
		return prefix{}, fmt.Errorf("truncated: %d bytes, shorter than the %d-byte prefix", len(b), prefixSize)
	}
	if string(b[:8]) != magic {
		return prefix{}, fmt.Errorf("not a vx cache entry (bad magic %q)", b[:8])
	}
	p := prefix{
		version:    binary.LittleEndian.Uint32(b[8:]),
		metaLen:    binary.LittleEndian.Uint32(b[12:]),
		logLen:     binary.LittleEndian.Uint64(b[16:]),
		archiveLen: binary.LittleEndian.Uint64(b[24:]),
		metaSum:    binary.LittleEndian.Uint64(b[32:]),
	}
	if p.version != FormatVersion {
		return prefix{}, fmt.Errorf("entry format version %d, this vx reads version %d", p.version, FormatVersion)
	}
	if p.metaLen == 0 || p.metaLen > maxMetaSize || p.logLen > maxSection || p.archiveLen > maxSection {
		return prefix{}, fmt.Errorf("implausible section lengths (meta %d, log %d, archive %d)", p.metaLen, p.logLen, p.archiveLen)
	}
	return p, nil
}

// header is the meta section.
type header struct {
	Meta
	Files       int   `json:"files"`
	OutputBytes int64 `json:"outputBytes"`
	LogBytes    int   `json:"logBytes"`
}

// fileEntry is one output in the manifest. Mode holds permission bits only.
type fileEntry struct {
	Path   string `json:"path"`
	Type   string `json:"type"` // typeFile or typeSymlink
	Mode   uint32 `json:"mode,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Target string `json:"target,omitempty"`
}

const (
	typeFile    = "file"
	typeSymlink = "symlink"
)

type manifest struct {
	Files []fileEntry `json:"files"`
}

// readHeader reads and checks the prefix and meta section of an entry of
// the given size. It reads headerProbe bytes, more only for a large meta.
func readHeader(ra io.ReaderAt, size int64) (prefix, header, error) {
	n := int64(headerProbe)
	if size < n {
		n = size
	}
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, 0); err != nil && err != io.EOF {
		return prefix{}, header{}, err
	}
	p, err := parsePrefix(buf)
	if err != nil {
		return prefix{}, header{}, err
	}
	if size != p.size() {
		return prefix{}, header{}, fmt.Errorf("truncated or padded: %d bytes on disk, the prefix says %d", size, p.size())
	}
	end := prefixSize + int64(p.metaLen)
	meta := buf[prefixSize:min(end, n)]
	if end > n {
		meta = make([]byte, p.metaLen)
		if _, err := ra.ReadAt(meta, prefixSize); err != nil {
			return prefix{}, header{}, err
		}
	}
	if xxh3.Hash(meta) != p.metaSum {
		return prefix{}, header{}, fmt.Errorf("header checksum mismatch")
	}
	var h header
	if err := json.Unmarshal(meta, &h); err != nil {
		return prefix{}, header{}, fmt.Errorf("decoding header: %v", err)
	}
	return p, h, nil
}

// entrySum is the trailer value: it covers the prefix and, through bodySum,
// every byte after it.
func entrySum(pre []byte, bodySum uint64) uint64 {
	b := make([]byte, 0, prefixSize+8)
	b = append(b, pre...)
	b = binary.LittleEndian.AppendUint64(b, bodySum)
	return xxh3.Hash(b)
}

// verify checks the trailer against every byte of the entry.
func verify(ra io.ReaderAt, p prefix) error {
	pre := make([]byte, prefixSize)
	if _, err := ra.ReadAt(pre, 0); err != nil {
		return err
	}
	bodyLen := p.size() - prefixSize - trailerSize
	h := xxh3.New()
	if _, err := io.Copy(h, io.NewSectionReader(ra, prefixSize, bodyLen)); err != nil {
		return err
	}
	var tr [trailerSize]byte
	if _, err := ra.ReadAt(tr[:], prefixSize+bodyLen); err != nil && err != io.EOF {
		return err
	}
	if entrySum(pre, h.Sum64()) != binary.LittleEndian.Uint64(tr[:]) {
		return fmt.Errorf("checksum mismatch")
	}
	return nil
}

// checkManifest refuses paths that are not local to the root (absolute, "..",
// empty), duplicates, unknown types, and an entry nested under another entry
// (which would write through a restored symlink or a file).
func checkManifest(files []fileEntry) error {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if !isLocalSlash(f.Path) {
			return fmt.Errorf("path %q escapes the restore root", f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("path %q listed twice", f.Path)
		}
		seen[f.Path] = true
		switch f.Type {
		case typeFile:
			if f.Size < 0 || f.Mode&^0o777 != 0 {
				return fmt.Errorf("file %q has a bad size or mode", f.Path)
			}
		case typeSymlink:
			if f.Target == "" {
				return fmt.Errorf("symlink %q has no target", f.Path)
			}
		default:
			return fmt.Errorf("path %q has unknown type %q", f.Path, f.Type)
		}
	}
	for _, f := range files {
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			if seen[d] {
				return fmt.Errorf("path %q lies under output %q", f.Path, d)
			}
		}
	}
	return nil
}

// isLocalSlash reports whether p is a clean, relative, slash-separated path
// that stays under its root.
func isLocalSlash(p string) bool {
	return p != "" && p != "." && path.Clean(p) == p && filepath.IsLocal(filepath.FromSlash(p)) && !strings.ContainsRune(p, '\\')
}

// zstd coders: one shared encoder and decoder for whole buffers (safe for
// concurrent use), pools of single-threaded ones for streams.
var (
	blockEnc = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err)
		}
		return e
	})
	blockDec = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil)
		if err != nil {
			panic(err)
		}
		return d
	})
	encPool = sync.Pool{New: func() any {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err)
		}
		return e
	}}
	decPool = sync.Pool{New: func() any {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			panic(err)
		}
		return d
	}}
)
