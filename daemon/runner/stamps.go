package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/vzn/vx/daemon/hashing"
)

// outputStamps remember, per task, the key whose outputs are on disk and
// each output file's size, mtime, ctime, inode and mode as vx left them. A cache
// hit whose outputs still match needs no restore: most warm runs rewrite
// nothing.
type outputStamps struct {
	path  string
	mu    sync.Mutex
	m     map[string]stampRecord
	dirty bool
}

type stampRecord struct {
	Key   string      `json:"key"`
	Files []fileStamp `json:"files"`
	// Log is the task's (masked) log when small, so a warm hit can replay
	// it without opening the cache entry.
	Log *string `json:"log,omitempty"`
}

// maxStampLog bounds the logs kept in the stamps file.
const maxStampLog = 4 << 10

type fileStamp struct {
	Path  string `json:"p"`
	Size  int64  `json:"s"`
	Mtime int64  `json:"t"`
	Ino   uint64 `json:"i"`
	Mode  uint32 `json:"m"`
	// Ctime is the inode change time: an edit in place that puts the
	// mtime back (touch -r, utimes) still moves it, and no user call can
	// set it.
	Ctime int64 `json:"c"`
}

func loadStamps(path string) *outputStamps {
	s := &outputStamps{path: path, m: map[string]stampRecord{}}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &s.m)
	}
	return s
}

func stampFile(dir, rel string) (fileStamp, bool) {
	st, _, ok := stampFileLinks(dir, rel)
	return st, ok
}

// stampFileLinks is stampFile with the file's link count.
func stampFileLinks(dir, rel string) (fileStamp, uint64, bool) {
	// A bare lstat into a Stat on the stack: os.Lstat allocated a
	// FileInfo for each output of each hit.
	var st hashing.Stat
	if err := hashing.Lstat(filepath.Join(dir, filepath.FromSlash(rel)), &st); err != nil {
		return fileStamp{}, 0, false
	}
	return fileStamp{Path: rel, Size: st.Size, Mtime: st.Mtime, Ino: st.Ino, Ctime: st.Ctime, Mode: uint32(st.FileMode())}, st.Nlink, true
}

// current reports whether the task's outputs on disk are exactly those vx
// left for key; it answers their paths, those of them with more than one
// link (a write through another link is not reported for this path by
// vxd's change journal) and, when kept, the task's log.
func (s *outputStamps) current(taskID, key, dir string) ([]string, []string, []byte, bool) {
	s.mu.Lock()
	rec, ok := s.m[taskID]
	s.mu.Unlock()
	if !ok || rec.Key != key {
		return nil, nil, nil, false
	}
	paths := make([]string, 0, len(rec.Files))
	var linked []string
	for _, want := range rec.Files {
		got, nlink, ok := stampFileLinks(dir, want.Path)
		if !ok || got != want {
			return nil, nil, nil, false
		}
		paths = append(paths, want.Path)
		if nlink != 1 {
			linked = append(linked, want.Path)
		}
	}
	var log []byte
	if rec.Log != nil {
		log = []byte(*rec.Log)
	}
	return paths, linked, log, true
}

// record stamps the outputs vx just wrote (restored or produced) for key.
func (s *outputStamps) record(taskID, key, dir string, files []string, log []byte) {
	rec := stampRecord{Key: key, Files: make([]fileStamp, 0, len(files))}
	for _, f := range files {
		st, ok := stampFile(dir, f)
		if !ok {
			return
		}
		rec.Files = append(rec.Files, st)
	}
	if len(log) <= maxStampLog && utf8.Valid(log) {
		text := string(log)
		rec.Log = &text
	}
	s.mu.Lock()
	s.m[taskID] = rec
	s.dirty = true
	s.mu.Unlock()
}

func (s *outputStamps) forget(taskID string) {
	s.mu.Lock()
	if _, ok := s.m[taskID]; ok {
		delete(s.m, taskID)
		s.dirty = true
	}
	s.mu.Unlock()
}

func (s *outputStamps) save() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	b, err := json.Marshal(s.m)
	if err != nil {
		return err
	}
	s.dirty = false
	return hashing.WriteFileAtomic(s.path, b, 0o644)
}
