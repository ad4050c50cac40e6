// Package hashing lists a workspace's files and hashes their contents,
// remembering each file's hash against its size, mtime and inode in a stat
// cache so that a warm run costs about one stat per input file.
package hashing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/vzn/vx/internal/digest"
	"github.com/vzn/vx/protocol/layout"
)

// Sum returns the hex xxh3-128 of b (digest.Sum).
func Sum(b []byte) string { return digest.Sum(b) }

// SumString is Sum of a string.
func SumString(s string) string { return Sum([]byte(s)) }

// statKey is what says a file is as it was hashed: its size, mtime, inode
// and ctime. The ctime catches what the other three miss: a rewrite in
// place to the same size with the mtime put back (touch -r, a tool
// restoring timestamps) still moves it, and nothing outside the kernel can
// set it.
type statKey struct {
	size  int64
	mtime int64
	ino   uint64
	ctime int64
}

type statEntry struct {
	key  statKey
	hash [16]byte
	rec  int32 // its record in the loaded cache (prestat.go), -1 when hashed by this process
}

// Hasher hashes files, backed by a persistent stat cache.
type Hasher struct {
	path string
	mu   sync.RWMutex // readers: every worker's lookups at once
	m    map[string]statEntry
	// mOnce fills m from the loaded records (pre) when first needed: a
	// run whose inputs all go by their record (HashRecord) never is.
	mOnce sync.Once
	dirty bool
	// released: Release dropped the loaded records; Save writes nothing.
	released bool
	// kept, when the run told its listing (ForgetUnlisted), marks the
	// loaded records Save keeps: the listed ones and those found by path.
	kept []atomic.Bool
	// changes, when set, answers files vxd proved unchanged (UseChanges).
	changes *proven
	// loadOnce reads the cache file into pre, before anything reads pre.
	loadOnce sync.Once
	// pre is the loaded records' early stat (prestat.go).
	pre prestat
}

// statCacheMagic heads the stat cache; vxstat1 had no ctime, and a cache
// of that format is not read (the next run rebuilds it).
const statCacheMagic = "vxstat2\n"

// statRecord is the size of a record after its name: size, mtime, inode,
// ctime, hash.
const statRecord = 48

// NewHasher loads the stat cache at path ("" keeps it in memory only). A
// missing or unreadable cache starts empty.
func NewHasher(path string) *Hasher {
	h := &Hasher{path: path}
	h.load()
	return h
}

// NewLazyHasher is NewHasher reading the stat cache only when a file is
// hashed that vxd's change journal did not prove unchanged (UseChanges):
// with the journal's answer a run may need none of it, and at 10,000
// packages the cache is 10 MB read and 110,000 records decoded for
// nothing.
func NewLazyHasher(path string) *Hasher { return &Hasher{path: path} }

// load reads the stat cache into pre, once.
func (h *Hasher) load() { h.loadOnce.Do(h.read) }

// read is load's work: the cache file's records into pre.
func (h *Hasher) read() {
	path := h.path
	if path == "" {
		return
	}
	// Offsets are 32 bits: a cache bigger than they reach is not read
	// (nor is one that grew past them meanwhile), and is rebuilt.
	if st, err := os.Stat(path); err != nil || st.Size() > int64(len(statCacheMagic))+math.MaxUint32 {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte(statCacheMagic)) {
		return
	}
	b = b[len(statCacheMagic):]
	if len(b) > math.MaxUint32 {
		return
	}
	h.pre.buf, h.pre.offs = b, recordOffsets(b)
	h.pre.fresh = make([]atomic.Bool, len(h.pre.offs))
}

// recordOffsets are where each whole record of b starts.
func recordOffsets(b []byte) []uint32 {
	offs := make([]uint32, 0, countStatRecords(b))
	for off := 0; len(b)-off >= 2; {
		size := 2 + int(binary.LittleEndian.Uint16(b[off:])) + statRecord
		if len(b)-off < size {
			break
		}
		offs = append(offs, uint32(off))
		off += size
	}
	return offs
}

// index fills the map by path from the loaded records, once, sized for
// them all first (growing it as it filled rehashed it a dozen times).
func (h *Hasher) index() {
	h.mOnce.Do(func() {
		h.load()
		p := &h.pre
		h.m = make(map[string]statEntry, p.len())
		for i := range p.len() {
			h.m[p.name(i)] = statEntry{key: p.key(i), hash: p.hash(i), rec: int32(i)}
		}
	})
}

// countStatRecords is how many whole records b holds.
func countStatRecords(b []byte) int {
	n := 0
	for len(b) >= 2 {
		size := 2 + int(binary.LittleEndian.Uint16(b)) + statRecord
		if len(b) < size {
			break
		}
		b = b[size:]
		n++
	}
	return n
}

// Save writes the stat cache atomically when it changed.
func (h *Hasher) Save() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.path == "" || h.released || !h.dirty && !h.forgets() {
		return nil
	}
	h.index() // made already by the HashFile that made it dirty
	var buf bytes.Buffer
	buf.WriteString(statCacheMagic)
	names := make([]string, 0, len(h.m))
	for k, e := range h.m {
		if !h.forgotten(e.rec) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var rec [statRecord]byte
	var n [2]byte
	for _, name := range names {
		if len(name) > 65535 {
			continue
		}
		e := h.m[name]
		binary.LittleEndian.PutUint16(n[:], uint16(len(name)))
		buf.Write(n[:])
		buf.WriteString(name)
		binary.LittleEndian.PutUint64(rec[0:], uint64(e.key.size))
		binary.LittleEndian.PutUint64(rec[8:], uint64(e.key.mtime))
		binary.LittleEndian.PutUint64(rec[16:], e.key.ino)
		binary.LittleEndian.PutUint64(rec[24:], uint64(e.key.ctime))
		copy(rec[32:], e.hash[:])
		buf.Write(rec[:])
	}
	if err := WriteFileAtomic(h.path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	h.dirty = false
	return nil
}

// ForgetUnlisted tells h that recs, Records of the workspace's whole
// listing, are the files there are to remember: Save then keeps those
// records and every file this process hashed or found by its path, and
// forgets the rest (files removed since, and another root's: a workspace
// copied or moved with its .vx keeps the old paths, which every later run
// would read). A nil recs (no records, or a daemon's journal in use)
// forgets nothing.
func (h *Hasher) ForgetUnlisted(recs []int32) {
	if recs == nil {
		return
	}
	h.load()
	kept := make([]atomic.Bool, h.pre.len())
	for _, r := range recs {
		if r >= 0 && int(r) < len(kept) {
			kept[r].Store(true)
		}
	}
	h.mu.Lock()
	h.kept = kept
	h.mu.Unlock()
}

// forgotten reports whether Save leaves out loaded record rec (-1: a
// file this process hashed). Called with h.mu held.
func (h *Hasher) forgotten(rec int32) bool {
	return rec >= 0 && h.kept != nil && int(rec) < len(h.kept) && !h.kept[rec].Load()
}

// forgets reports whether Save would leave out a loaded record. Called
// with h.mu held.
func (h *Hasher) forgets() bool {
	for i := range h.kept {
		if !h.kept[i].Load() {
			return true
		}
	}
	return false
}

// HashFile returns the content hash of the file at abs. Symlinks hash their
// target path, so a link's identity is where it points.
func (h *Hasher) HashFile(abs string) (string, error) {
	if sum, ok := h.changes.trustedHash(abs); ok {
		return sum, nil
	}
	// Looked up first: a file the early stat marked needs no stat of
	// its own (prestat.go). An entry another worker replaces meanwhile
	// (two tasks hashing one file) is still a stat and its hash.
	h.index()
	h.mu.RLock()
	e, ok := h.m[abs]
	if ok && e.rec >= 0 && h.kept != nil {
		h.kept[e.rec].Store(true) // an input the listing leaves out
	}
	h.mu.RUnlock()
	if ok && h.pre.marked(e.rec, h.changes) {
		return hex.EncodeToString(e.hash[:]), nil
	}
	// A bare lstat into a Stat on the stack: os.Lstat would allocate a
	// FileInfo for each of a run's (often 10,000 and more) inputs.
	var st Stat
	if err := Lstat(abs, &st); err != nil {
		return "", &fs.PathError{Op: "lstat", Path: abs, Err: err}
	}
	switch {
	case st.Symlink():
		target, err := os.Readlink(abs)
		if err != nil {
			return "", err
		}
		// Slash-separated, so a link hashes the same on every OS
		// (Windows reads targets back with backslashes).
		sum := "link:" + SumString(filepath.ToSlash(target))
		h.changes.read(abs, &st, sum)
		return sum, nil
	case st.Regular():
	default:
		return "", errors.New("not a regular file")
	}
	mtime := time.Unix(0, st.Mtime)
	k := statKeyOf(&st)
	if ok && e.key == k {
		sum := hex.EncodeToString(e.hash[:])
		h.changes.read(abs, &st, sum)
		return sum, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hasher := xxh3.New()
	if _, err := io.Copy(hasher, f); err != nil {
		return "", err
	}
	sum := hasher.Sum128().Bytes()
	// A file modified within the last two seconds may change again within
	// the mtime's resolution without its stat changing: do not remember it.
	if time.Since(mtime) > 2*time.Second {
		h.mu.Lock()
		h.m[abs] = statEntry{key: k, hash: sum, rec: -1}
		h.dirty = true
		h.mu.Unlock()
	}
	h.changes.read(abs, &st, hex.EncodeToString(sum[:]))
	return hex.EncodeToString(sum[:]), nil
}

// ListFiles returns every file under root that git does not ignore, as
// slash paths relative to root, sorted. Outside a git repository it walks
// the tree, skipping .git, .vx and node_modules.
func ListFiles(ctx context.Context, root string) ([]string, error) {
	if files, err := gitFiles(ctx, root); err == nil {
		return files, nil
	}
	var out []string
	start := WalkStart(root)
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", layout.DirName, "node_modules":
				if p != start {
					return filepath.SkipDir
				}
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

func gitFiles(ctx context.Context, root string) ([]string, error) {
	// Tracked files deleted from the work tree are listed by --cached: ask
	// git for them at the same time rather than stat every file.
	deleted := map[string]bool{}
	delDone := make(chan struct{})
	go func() {
		defer close(delDone)
		del := exec.CommandContext(ctx, "git", "ls-files", "-z", "--deleted")
		del.Dir = root
		if b, err := del.Output(); err == nil {
			for _, f := range bytes.Split(b, []byte{0}) {
				if len(f) > 0 {
					deleted[string(f)] = true
				}
			}
		}
	}()
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	<-delDone
	if err != nil {
		return nil, err
	}
	seen := deleted
	var out []string
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		f := sc.Text()
		if f == "" || seen[f] || strings.HasPrefix(f, layout.DirName+"/") || strings.Contains("/"+f, "/node_modules/") {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	sort.Strings(out)
	return out, sc.Err()
}

// WriteFileAtomic writes data to path through a temp file and a rename, so
// readers see the old or the new content, never a torn one.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	_, err := writeFileAtomic(path, data, perm)
	return err
}

// WriteFileReplace is WriteFileAtomic without the fsync: readers and a
// killed process still see the old content or the new, never a torn one,
// but after a power loss the file may be empty or hold neither. For
// what is only ever a shortcut, checked when read (a memo that does not
// decode is no memo), the fsync is wasted time at the end of a run.
func WriteFileReplace(path string, data []byte, perm os.FileMode) error {
	_, err := writeFile(path, data, perm, false)
	return err
}

// writeFileAtomic is WriteFileAtomic; it answers the inode it wrote (the
// temp file's, which the rename keeps).
func writeFileAtomic(path string, data []byte, perm os.FileMode) (uint64, error) {
	return writeFile(path, data, perm, true)
}

// writeFile writes data to a temp file beside path, fsyncs it when sync,
// and renames it over path; it answers the inode written.
func writeFile(path string, data []byte, perm os.FileMode, sync bool) (uint64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	var st Stat
	if err == nil {
		err = fstat(f, &st)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return st.Ino, nil
}
