// Package cache is the task output cache kept in .vx/cache/ of a workspace.
//
// Each entry is one file, <dir>/<key[:2]>/<key>.vxc, holding a task's
// outputs (regular files and symlinks, zstd-compressed), its captured log and
// a small JSON header. Entries are written to a temp file in the same
// directory, fsynced and renamed into place, so readers only ever see whole
// entries, and a trailing xxh3 checksum over every byte is checked before
// anything is restored. See format.go for the layout.
package cache

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rs/zerolog"
	"github.com/zeebo/xxh3"
)

var (
	// ErrMiss reports that the cache holds no entry for a key.
	ErrMiss = errors.New("cache miss")
	// ErrCorrupt reports an entry that is truncated, damaged or of another
	// format version. Callers treat it as a miss; the next Put replaces it.
	ErrCorrupt = errors.New("corrupt cache entry")
	// errReadOnly reports a write to a store opened with Options.ReadOnly.
	errReadOnly = errors.New("cache opened read-only")
)

// smallEntry is the size up to which Get reads an entry into memory once and
// serves Log and Restore from it.
const smallEntry = 1 << 20

// Options configure Open. A nil *Options means the defaults.
type Options struct {
	// ReadOnly opens the cache without creating anything on disk; a missing
	// directory is an empty cache, and Put and Prune (unless a dry run) fail.
	ReadOnly bool
	// Logger receives warnings; the zero value discards them.
	Logger zerolog.Logger
}

// Store is a cache directory. It is safe for concurrent use, and several
// processes may share one directory.
type Store struct {
	dir      string
	readOnly bool
	log      zerolog.Logger

	// wrapTemp, set by tests, wraps the temp file writer of Put.
	wrapTemp func(io.Writer) io.Writer
	// noSync, set by benchmarks that build many entries, skips fsync.
	noSync bool
}

// Meta describes the run that produced an entry.
type Meta struct {
	Key        string    `json:"key"`
	TaskID     string    `json:"taskId"`
	Project    string    `json:"project"`
	Task       string    `json:"task"`
	Command    string    `json:"command"`
	ExitCode   int       `json:"exitCode"`
	DurationMs int64     `json:"durationMs"`
	Created    time.Time `json:"created"`
}

// Entry is a stored entry: its Meta, its size on disk, how many outputs it
// holds and the path of its file.
type Entry struct {
	Meta
	Size  int64  `json:"size"`
	Files int    `json:"files"`
	Path  string `json:"path"`
}

// Hit is an entry found by Get, checked against its checksum.
type Hit struct {
	Entry

	pre      prefix
	fi       os.FileInfo
	data     []byte // the whole entry, when small
	logZ     []byte
	logBytes int
}

// Open opens the cache at dir, typically ROOT/.vx/cache, creating it unless
// opts.ReadOnly is set.
func Open(dir string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Store{dir: dir, readOnly: opts.ReadOnly, log: opts.Logger}
	if s.readOnly {
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return s, nil
		case err != nil:
			return nil, fmt.Errorf("opening cache: %w", err)
		case !fi.IsDir():
			return nil, fmt.Errorf("opening cache: %s is not a directory", dir)
		}
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("opening cache: %w", err)
	}
	return s, nil
}

// Dir returns the cache directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) entryPath(key string) string {
	return filepath.Join(s.dir, key[:2], key+entryExt)
}

// checkKey accepts lowercase hex keys only, so a key is always a safe file
// name and has one spelling.
func checkKey(key string) error {
	if len(key) < 4 || len(key) > 128 {
		return fmt.Errorf("invalid cache key %q: want 4 to 128 lowercase hex digits", key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("invalid cache key %q: want 4 to 128 lowercase hex digits", key)
		}
	}
	return nil
}

func corrupt(path string, err error) error {
	return fmt.Errorf("%w %s: %w", ErrCorrupt, path, err)
}

// Put stores the outputs files (paths relative to root; regular files and
// symlinks, directories are implied and skipped) and the task's captured,
// already masked log under m.Key, replacing any entry of that key. Created
// defaults to now. On failure nothing is left behind and the error says why;
// the caller warns and keeps the task's result.
func (s *Store) Put(ctx context.Context, m Meta, root string, files []string, log []byte) (Entry, error) {
	if s.readOnly {
		return Entry{}, errReadOnly
	}
	if err := checkKey(m.Key); err != nil {
		return Entry{}, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return Entry{}, fmt.Errorf("caching outputs of %s: %w", m.TaskID, err)
	}
	defer r.Close()
	man, err := collect(r, files)
	if err != nil {
		return Entry{}, fmt.Errorf("caching outputs of %s: %w", m.TaskID, err)
	}
	open := func(e fileEntry) (io.ReadCloser, error) {
		f, err := r.Open(filepath.FromSlash(e.Path))
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil && (!fi.Mode().IsRegular() || fi.Size() != e.Size) {
			err = fmt.Errorf("output %s changed while it was being cached", e.Path)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	e, err := s.write(ctx, m, man, log, open)
	if err != nil {
		return Entry{}, fmt.Errorf("caching outputs of %s: %w", m.TaskID, err)
	}
	return e, nil
}

// collect builds the sorted manifest of the outputs named by files.
func collect(r *os.Root, files []string) ([]fileEntry, error) {
	out := make([]fileEntry, 0, len(files))
	seen := make(map[string]bool, len(files))
	for _, name := range files {
		p := filepath.ToSlash(filepath.Clean(name))
		if !isLocalSlash(p) {
			return nil, fmt.Errorf("output path %q is not inside the root (absolute or ..)", name)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		fi, err := r.Lstat(filepath.FromSlash(p))
		if err != nil {
			return nil, err
		}
		switch mode := fi.Mode(); {
		case mode.IsRegular():
			out = append(out, fileEntry{Path: p, Type: typeFile, Mode: uint32(mode.Perm()), Size: fi.Size()})
		case mode&fs.ModeSymlink != 0:
			t, err := r.Readlink(filepath.FromSlash(p))
			if err != nil {
				return nil, err
			}
			out = append(out, fileEntry{Path: p, Type: typeSymlink, Target: t})
		case mode.IsDir():
			// Directories are implied by the files under them.
		default:
			return nil, fmt.Errorf("output %s is a %v; only regular files and symlinks can be cached", p, mode.Type())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if err := checkManifest(out); err != nil {
		return nil, err
	}
	return out, nil
}

type hashWriter struct {
	w io.Writer
	h *xxh3.Hasher
	n int64
}

func (w *hashWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.h.Write(p[:n])
	w.n += int64(n)
	return n, err
}

// write stores an entry for manifest man, reading file contents from open.
func (s *Store) write(ctx context.Context, m Meta, man []fileEntry, log []byte, open func(fileEntry) (io.ReadCloser, error)) (_ Entry, err error) {
	m, meta, manJSON, err := encodeHeader(m, man, log)
	if err != nil {
		return Entry{}, err
	}

	shard := filepath.Join(s.dir, m.Key[:2])
	if err := os.MkdirAll(shard, 0o755); err != nil {
		return Entry{}, err
	}
	tmp, err := os.CreateTemp(shard, tempPrefix+m.Key+"-*")
	if err != nil {
		return Entry{}, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			if rerr := os.Remove(tmp.Name()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				s.log.Warn().Err(rerr).Str("path", tmp.Name()).Msg("removing cache temp file")
			}
		}
	}()
	var w io.Writer = tmp
	if s.wrapTemp != nil {
		w = s.wrapTemp(w)
	}
	if _, err := w.Write(make([]byte, prefixSize)); err != nil {
		return Entry{}, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	hw := &hashWriter{w: bw, h: xxh3.New()}
	p := prefix{version: FormatVersion, metaLen: uint32(len(meta)), metaSum: xxh3.Hash(meta)}
	if _, err := hw.Write(meta); err != nil {
		return Entry{}, err
	}
	if len(log) > 0 {
		z := blockEnc().EncodeAll(log, nil)
		if _, err := hw.Write(z); err != nil {
			return Entry{}, err
		}
		p.logLen = uint64(len(z))
	}

	start := hw.n
	if err := writeArchive(ctx, hw, manJSON, man, open); err != nil {
		return Entry{}, err
	}
	p.archiveLen = uint64(hw.n - start)
	if err := bw.Flush(); err != nil {
		return Entry{}, err
	}

	pre := p.marshal()
	tr := binary.LittleEndian.AppendUint64(nil, entrySum(pre, hw.h.Sum64()))
	if _, err := w.Write(tr); err != nil {
		return Entry{}, err
	}
	if _, err := tmp.WriteAt(pre, 0); err != nil {
		return Entry{}, err
	}
	if !s.noSync {
		if err := tmp.Sync(); err != nil {
			return Entry{}, err
		}
	}
	if err := tmp.Close(); err != nil {
		return Entry{}, err
	}
	final := s.entryPath(m.Key)
	if err := os.Rename(tmp.Name(), final); err != nil {
		return Entry{}, err
	}
	if !s.noSync {
		syncDir(shard)
	}
	return Entry{Meta: m, Size: p.size(), Files: len(man), Path: final}, nil
}

// encodeHeader stamps m's creation time and encodes the entry's header
// and manifest, refusing a header over maxMetaSize.
func encodeHeader(m Meta, man []fileEntry, log []byte) (_ Meta, meta, manJSON []byte, err error) {
	if m.Created.IsZero() {
		m.Created = time.Now()
	}
	m.Created = m.Created.UTC()
	h := header{Meta: m, Files: len(man), LogBytes: len(log)}
	for _, f := range man {
		h.OutputBytes += f.Size
	}
	meta, err = json.Marshal(h)
	if err != nil {
		return m, nil, nil, err
	}
	if len(meta) > maxMetaSize {
		return m, nil, nil, fmt.Errorf("entry header is %d bytes, over the %d-byte limit (is the command that long?)", len(meta), maxMetaSize)
	}
	manJSON, err = json.Marshal(manifest{Files: man})
	if err != nil {
		return m, nil, nil, err
	}
	return m, meta, manJSON, nil
}

// writeArchive writes the zstd archive to w: the manifest's length and
// JSON, then each regular file's contents read from open, stopping when
// ctx ends or a file shrank.
func writeArchive(ctx context.Context, w io.Writer, manJSON []byte, man []fileEntry, open func(fileEntry) (io.ReadCloser, error)) error {
	enc := encPool.Get().(*zstd.Encoder)
	enc.Reset(w)
	var lb [4]byte
	binary.LittleEndian.PutUint32(lb[:], uint32(len(manJSON)))
	if _, err := enc.Write(lb[:]); err != nil {
		return err
	}
	if _, err := enc.Write(manJSON); err != nil {
		return err
	}
	for _, f := range man {
		if f.Type != typeFile {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rc, err := open(f)
		if err != nil {
			return err
		}
		_, err = io.CopyN(enc, rc, f.Size)
		rc.Close()
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("output %s shrank while it was being cached", f.Path)
		}
		if err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	enc.Reset(io.Discard) // drop the reference to the temp file
	encPool.Put(enc)
	return nil
}

// syncDir makes a rename durable. Failure only risks losing the entry on a
// crash, which is a miss, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Get returns the entry stored under key, checked against its checksum:
// ErrMiss when there is none, an error wrapping ErrCorrupt when it is damaged.
func (s *Store) Get(key string) (*Hit, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	h, err := openHit(s.entryPath(key), key)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// openHit reads and verifies the entry at path.
func openHit(path, key string) (*Hit, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrMiss
	}
	if err != nil {
		return nil, fmt.Errorf("reading cache entry: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading cache entry: %w", err)
	}
	h := &Hit{fi: fi}
	var ra io.ReaderAt = f
	if fi.Size() <= smallEntry {
		h.data = make([]byte, fi.Size())
		if _, err := io.ReadFull(f, h.data); err != nil {
			return nil, corrupt(path, err)
		}
		ra = bytes.NewReader(h.data)
	}
	pre, hdr, err := readHeader(ra, fi.Size())
	if err != nil {
		return nil, corrupt(path, err)
	}
	if hdr.Key != key {
		return nil, corrupt(path, fmt.Errorf("holds key %q", hdr.Key))
	}
	if err := verify(ra, pre); err != nil {
		return nil, corrupt(path, err)
	}
	if h.data != nil {
		h.logZ = h.data[pre.logOff() : pre.logOff()+int64(pre.logLen)]
	} else {
		h.logZ = make([]byte, pre.logLen)
		if _, err := f.ReadAt(h.logZ, pre.logOff()); err != nil {
			return nil, corrupt(path, err)
		}
	}
	h.pre = pre
	h.logBytes = hdr.LogBytes
	h.Entry = Entry{Meta: hdr.Meta, Size: fi.Size(), Files: hdr.Files, Path: path}
	return h, nil
}

// Log returns the task's captured log.
func (h *Hit) Log() ([]byte, error) {
	if len(h.logZ) == 0 {
		return []byte{}, nil
	}
	b, err := blockDec().DecodeAll(h.logZ, make([]byte, 0, h.logBytes))
	if err != nil {
		return nil, corrupt(h.Path, fmt.Errorf("decoding log: %w", err))
	}
	return b, nil
}

// source returns the verified entry bytes to restore from. An entry file is
// never changed after its rename, so the file Get verified needs no second
// check; a file replaced since (a concurrent Put) is verified afresh.
func (h *Hit) source() (io.ReaderAt, prefix, func(), error) {
	if h.data != nil {
		return bytes.NewReader(h.data), h.pre, func() {}, nil
	}
	f, err := os.Open(h.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, prefix{}, nil, fmt.Errorf("%w: %s was removed after it was read", ErrMiss, h.Path)
	}
	if err != nil {
		return nil, prefix{}, nil, fmt.Errorf("reading cache entry: %w", err)
	}
	done := func() { f.Close() }
	fi, err := f.Stat()
	if err != nil {
		done()
		return nil, prefix{}, nil, fmt.Errorf("reading cache entry: %w", err)
	}
	pre, hdr, err := readHeader(f, fi.Size())
	if err != nil {
		done()
		return nil, prefix{}, nil, corrupt(h.Path, err)
	}
	same := os.SameFile(fi, h.fi) && fi.Size() == h.fi.Size() && fi.ModTime().Equal(h.fi.ModTime()) && pre == h.pre
	if !same {
		if hdr.Key != h.Key {
			err = fmt.Errorf("holds key %q", hdr.Key)
		} else {
			err = verify(f, pre)
		}
		if err != nil {
			done()
			return nil, prefix{}, nil, corrupt(h.Path, err)
		}
	}
	return f, pre, done, nil
}

// Restore writes the entry's outputs under root and returns their paths
// (slash-separated, relative to root). Files get their content and mode,
// replacing what is there; symlinks are recreated. The entry is verified and
// its paths checked (nothing absolute, nothing under "..", nothing through a
// symlink) before root is touched, so a bad entry writes nothing.
func (h *Hit) Restore(root string) (files []string, err error) {
	return h.RestoreWithin(root, nil)
}

// RestoreWithin is Restore for an entry whose outputs are known: when
// allow refuses one of the entry's paths, the entry is corrupt and nothing
// is written (an entry received from elsewhere may name any path under
// root: a source file, a git hook).
func (h *Hit) RestoreWithin(root string, allow func(path string) bool) (files []string, err error) {
	ra, pre, done, err := h.source()
	if err != nil {
		return nil, err
	}
	defer done()
	dec := decPool.Get().(*zstd.Decoder)
	defer func() {
		dec.Reset(nil)
		decPool.Put(dec)
	}()
	if err := dec.Reset(io.NewSectionReader(ra, pre.archiveOff(), int64(pre.archiveLen))); err != nil {
		return nil, corrupt(h.Path, err)
	}
	man, err := readManifest(dec)
	if err != nil {
		return nil, corrupt(h.Path, err)
	}
	for _, f := range man {
		if allow != nil && !allow(f.Path) {
			return nil, corrupt(h.Path, fmt.Errorf("%s is not one of the task's outputs", f.Path))
		}
	}

	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("restoring outputs: %w", err)
	}
	defer r.Close()
	made := map[string]bool{".": true}
	mkdir := func(name string) error {
		d := filepath.Dir(name)
		if made[d] {
			return nil
		}
		if err := r.MkdirAll(d, 0o755); err != nil {
			return err
		}
		made[d] = true
		return nil
	}
	files = make([]string, 0, len(man))
	for _, f := range man {
		if f.Type != typeFile {
			continue
		}
		if err := restoreFile(r, f, dec, mkdir); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = corrupt(h.Path, fmt.Errorf("archive ends inside %s", f.Path))
			}
			return files, fmt.Errorf("restoring %s: %w", f.Path, err)
		}
		files = append(files, f.Path)
	}
	for _, f := range man {
		if f.Type != typeSymlink {
			continue
		}
		name := filepath.FromSlash(f.Path)
		err := mkdir(name)
		if err == nil {
			err = removeIfPresent(r, name)
		}
		if err == nil {
			err = r.Symlink(f.Target, name)
		}
		if err != nil {
			return files, fmt.Errorf("restoring %s: %w", f.Path, err)
		}
		files = append(files, f.Path)
	}
	return files, nil
}

func readManifest(dec io.Reader) ([]fileEntry, error) {
	var lb [4]byte
	if _, err := io.ReadFull(dec, lb[:]); err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	n := binary.LittleEndian.Uint32(lb[:])
	if n > maxManifest {
		return nil, fmt.Errorf("manifest of %d bytes is implausible", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(dec, buf); err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	var man manifest
	if err := json.Unmarshal(buf, &man); err != nil {
		return nil, fmt.Errorf("decoding manifest: %w", err)
	}
	if err := checkManifest(man.Files); err != nil {
		return nil, err
	}
	return man.Files, nil
}

// restoreFile replaces f under r with a new file. Removing first means an
// existing symlink is replaced rather than written through, and hard links
// elsewhere keep their content.
func restoreFile(r *os.Root, f fileEntry, src io.Reader, mkdir func(string) error) error {
	name := filepath.FromSlash(f.Path)
	if err := mkdir(name); err != nil {
		return err
	}
	if err := removeIfPresent(r, name); err != nil {
		return err
	}
	mode := fs.FileMode(f.Mode)
	out, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(out, src, f.Size); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(mode); err != nil { // the umask may have narrowed it
		out.Close()
		return err
	}
	return out.Close()
}

func removeIfPresent(r *os.Root, name string) error {
	if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replacing existing output: %w", err)
	}
	return nil
}
