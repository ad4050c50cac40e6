package workspace

import (
	"bytes"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/records"
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
	r := &recordReader{records.Reader{S: string(raw[len(manifestsMagic):])}}
	n := r.Uint()
	if n > maxManifests {
		r.Fail()
	}
	for i := uint64(0); i < n && !r.Bad; i++ {
		path, rec := r.Str(), r.Str()
		if !r.Bad {
			s.saved[path] = rec
		}
	}
	if r.Bad || r.S != "" {
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
	r := &recordReader{records.Reader{S: rec}}
	if r.stamp() != st {
		return nil, false
	}
	p := r.packageJSON()
	if r.Bad || r.S != "" {
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
	s.keep[path] = w.B.String()
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
	w.B.WriteString(manifestsMagic)
	w.Uint(uint64(len(paths)))
	for _, p := range paths {
		w.Str(p)
		w.Str(s.keep[p])
	}
	_ = hashing.WriteFileAtomic(s.path, w.B.Bytes(), 0o644)
}

// recordWriter is records.Writer with the manifests' own values.
type recordWriter struct{ records.Writer }

func (w *recordWriter) stamp(st fileStamp) {
	w.Int(st.size)
	w.Int(st.mtime)
	w.Uint(st.ino)
	w.Int(st.ctime)
}

// strMap writes a map with its nil-ness: 0 is nil, n+1 is n entries.
func (w *recordWriter) strMap(m map[string]string) {
	if m == nil {
		w.Uint(0)
		return
	}
	w.Uint(uint64(len(m)) + 1)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.Str(k)
		w.Str(m[k])
	}
}

func (w *recordWriter) packageJSON(p *packageJSON) {
	w.Str(p.Name)
	w.Str(p.Version)
	w.strMap(p.Scripts)
	if p.Workspaces == nil {
		w.Uint(0)
	} else {
		w.Uint(uint64(len(p.Workspaces)) + 1)
		w.B.Write(p.Workspaces)
	}
	w.strMap(p.Dependencies)
	w.strMap(p.DevDependencies)
	w.strMap(p.PeerDependencies)
	w.strMap(p.OptionalDependencies)
}

// recordReader is records.Reader with the manifests' own values.
type recordReader struct{ records.Reader }

func (r *recordReader) stamp() fileStamp {
	return fileStamp{size: r.Int(), mtime: r.Int(), ino: r.Uint(), ctime: r.Int()}
}

func (r *recordReader) strMap() map[string]string {
	n := r.Uint()
	if n == 0 || r.Bad {
		return nil
	}
	n--
	if n > uint64(len(r.S)) {
		r.Fail()
		return nil
	}
	m := make(map[string]string, n)
	for i := uint64(0); i < n && !r.Bad; i++ {
		k := r.Str()
		m[k] = r.Str()
	}
	return m
}

func (r *recordReader) packageJSON() *packageJSON {
	p := &packageJSON{Name: r.Str(), Version: r.Str(), Scripts: r.strMap()}
	if n := r.Uint(); n > 0 && !r.Bad {
		if b := r.Bytes(n - 1); !r.Bad {
			p.Workspaces = []byte(b)
		}
	}
	p.Dependencies = r.strMap()
	p.DevDependencies = r.strMap()
	p.PeerDependencies = r.strMap()
	p.OptionalDependencies = r.strMap()
	return p
}
