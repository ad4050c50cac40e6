package workspace

import (
	"bytes"
	"encoding/binary"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/layout"
)

// A saved decoding of the workspace's package.json files, so that a vx
// process loading 1,000 projects reads one file instead of opening,
// reading and decoding 1,000 manifests. Each entry is kept against the
// file's size, mtime, ctime and inode, taken by the stat the load makes
// anyway: a manifest that stats differently is read and decoded again, as
// one written within racyWindow of the load is never saved (its stamp
// could stay the same through another edit). Entries of files the load no
// longer reads drop out when it saves. The file lives in .vx/ and is used
// only where .vx/ exists: a workspace vx never ran keeps no state.

const manifestsMagic = "vxmanifests1\n"

// maxManifests bounds the entries read from the saved file, and
// maxManifestsBytes its size.
const (
	maxManifests      = 1 << 20
	maxManifestsBytes = 256 << 20
)

// manifestStore is one load's view of the saved decodings.
type manifestStore struct {
	path  string
	saved map[string]string // manifest path → its record, from the file

	mu      sync.Mutex
	keep    map[string]string // records to save: those the load used
	changed bool
}

// openManifests reads the saved decodings of root's manifests; nil when
// the workspace has no .vx/ directory.
func openManifests(root string) *manifestStore {
	if st, err := os.Stat(layout.Dir(root)); err != nil || !st.IsDir() {
		return nil
	}
	s := &manifestStore{path: layout.Manifests(root), saved: map[string]string{}, keep: map[string]string{}}
	if st, err := os.Stat(s.path); err == nil && st.Size() > maxManifestsBytes {
		// Not something a load wrote: replaced by a whole one.
		s.changed = true
		return s
	}
	raw, err := os.ReadFile(s.path)
	if err != nil || !bytes.HasPrefix(raw, []byte(manifestsMagic)) {
		// Missing: saved once the load decodes something. Foreign:
		// replaced by a whole one.
		s.changed = err == nil
		return s
	}
	r := &recordReader{s: string(raw[len(manifestsMagic):])}
	n := r.uint()
	if n > maxManifests {
		r.fail()
	}
	for i := uint64(0); i < n && !r.bad; i++ {
		path, rec := r.str(), r.str()
		if !r.bad {
			s.saved[path] = rec
		}
	}
	if r.bad || r.s != "" {
		// A torn or foreign file: start over, and save a whole one.
		s.saved, s.changed = map[string]string{}, true
	}
	return s
}

// get answers the saved decoding of path when its stamp is st.
func (s *manifestStore) get(path string, st fileStamp) (*packageJSON, bool) {
	if s == nil {
		return nil, false
	}
	rec, ok := s.saved[path]
	if !ok {
		return nil, false
	}
	r := &recordReader{s: rec}
	if r.stamp() != st {
		return nil, false
	}
	p := r.packageJSON()
	if r.bad || r.s != "" {
		return nil, false
	}
	s.mu.Lock()
	s.keep[path] = rec
	s.mu.Unlock()
	return p, true
}

// put keeps path's fresh decoding for the next load, unless the file was
// written too recently for its stamp to be trusted.
func (s *manifestStore) put(path string, st fileStamp, p *packageJSON) {
	if s == nil || time.Since(time.Unix(0, st.mtime)) <= racyWindow || time.Since(time.Unix(0, st.ctime)) <= racyWindow {
		return
	}
	w := &recordWriter{}
	w.stamp(st)
	w.packageJSON(p)
	s.mu.Lock()
	s.keep[path] = w.b.String()
	s.changed = true
	s.mu.Unlock()
}

// racyWindow: a manifest whose mtime or ctime is this close to the load
// is not saved.
const racyWindow = 2 * time.Second

// save writes the records the load used when they differ from the file's.
func (s *manifestStore) save() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.changed && len(s.keep) == len(s.saved) {
		return
	}
	paths := make([]string, 0, len(s.keep))
	for p := range s.keep {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	w := &recordWriter{}
	w.b.WriteString(manifestsMagic)
	w.uint(uint64(len(paths)))
	for _, p := range paths {
		w.str(p)
		w.str(s.keep[p])
	}
	_ = hashing.WriteFileAtomic(s.path, w.b.Bytes(), 0o644)
}

type recordWriter struct{ b bytes.Buffer }

func (w *recordWriter) uint(v uint64) { w.b.Write(binary.AppendUvarint(nil, v)) }
func (w *recordWriter) int(v int64)   { w.b.Write(binary.AppendVarint(nil, v)) }
func (w *recordWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b.WriteString(s)
}

func (w *recordWriter) stamp(st fileStamp) {
	w.int(st.size)
	w.int(st.mtime)
	w.uint(st.ino)
	w.int(st.ctime)
}

// strMap writes a map with its nil-ness: 0 is nil, n+1 is n entries.
func (w *recordWriter) strMap(m map[string]string) {
	if m == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(m)) + 1)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.str(k)
		w.str(m[k])
	}
}

func (w *recordWriter) packageJSON(p *packageJSON) {
	w.str(p.Name)
	w.str(p.Version)
	w.strMap(p.Scripts)
	if p.Workspaces == nil {
		w.uint(0)
	} else {
		w.uint(uint64(len(p.Workspaces)) + 1)
		w.b.Write(p.Workspaces)
	}
	w.strMap(p.Dependencies)
	w.strMap(p.DevDependencies)
	w.strMap(p.PeerDependencies)
	w.strMap(p.OptionalDependencies)
}

// recordReader reads what recordWriter wrote; bad turns true on the
// first malformed value and stays so (every later read answers zero).
type recordReader struct {
	s   string
	bad bool
}

func (r *recordReader) fail() {
	r.bad, r.s = true, ""
}

func (r *recordReader) uint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint([]byte(r.s[:min(len(r.s), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.fail()
		return 0
	}
	r.s = r.s[n:]
	return v
}

func (r *recordReader) int() int64 {
	if r.bad {
		return 0
	}
	v, n := binary.Varint([]byte(r.s[:min(len(r.s), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.fail()
		return 0
	}
	r.s = r.s[n:]
	return v
}

func (r *recordReader) str() string {
	n := r.uint()
	if r.bad || n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

func (r *recordReader) stamp() fileStamp {
	return fileStamp{size: r.int(), mtime: r.int(), ino: r.uint(), ctime: r.int()}
}

func (r *recordReader) strMap() map[string]string {
	n := r.uint()
	if n == 0 || r.bad {
		return nil
	}
	n--
	if n > uint64(len(r.s)) {
		r.fail()
		return nil
	}
	m := make(map[string]string, n)
	for i := uint64(0); i < n && !r.bad; i++ {
		k := r.str()
		m[k] = r.str()
	}
	return m
}

func (r *recordReader) packageJSON() *packageJSON {
	p := &packageJSON{Name: r.str(), Version: r.str(), Scripts: r.strMap()}
	if n := r.uint(); n > 0 && !r.bad {
		n--
		if n > uint64(len(r.s)) {
			r.fail()
			return p
		}
		p.Workspaces = []byte(r.s[:n])
		r.s = r.s[n:]
	}
	p.Dependencies = r.strMap()
	p.DevDependencies = r.strMap()
	p.PeerDependencies = r.strMap()
	p.OptionalDependencies = r.strMap()
	return p
}
