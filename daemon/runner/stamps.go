package runner

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/protocol/layout"
)

// outputStamps remember, per task, the key whose outputs are on disk and
// each output file's size, mtime, ctime, inode and mode as vx left them. A cache
// hit whose outputs still match needs no restore: most warm runs rewrite
// nothing. With vxd's journal, a stamp a run verified after its token is
// taken without an lstat while the journal proves its files unchanged
// (vouch).
type outputStamps struct {
	path, seenPath string
	mu             sync.Mutex
	file           stampsFile              // as loaded (or last saved)
	edits          map[string]*stampRecord // this run's: recorded, or nil for forgotten
	dirty          bool

	// seen is the journal's mark of the loaded file (nil: none that
	// applies), vouch the run's journal (nil: stat every output).
	seen  *seenMark
	vouch *journal.Changes
	// epoch and seq are the run's journal token: the records this run
	// verified are marked at it (epoch "": none are). marked holds those
	// of the loaded file, a bit each by position; fresh those recorded
	// this run, by task id.
	epoch  string
	seq    uint64
	marked []atomic.Uint32
	fresh  map[string]bool
	dirs   *hashing.DirectDirs // a marked stamp's files are reached without a link

	proven, statted atomic.Int64 // hits' outputs taken either way
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

// loadStamps reads root's output stamps.
func loadStamps(root string) *outputStamps {
	return loadStampsFrom(layout.OutputStamps(root), layout.OutputStampsSeen(root), layout.OutputStampsJSON(root))
}

// loadStampsFrom reads the stamps file at path and the journal's mark
// beside it (seenPath); legacy is the JSON file of vx before, read only
// when there is no stamps file yet. A torn or corrupt file is no stamps.
func loadStampsFrom(path, seenPath, legacy string) *outputStamps {
	s := &outputStamps{path: path, seenPath: seenPath, edits: map[string]*stampRecord{}, fresh: map[string]bool{}}
	raw, err := readAtMost(path, maxStampsSize)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		if f, ok := parseStamps(raw); ok {
			s.file, s.marked = f, make([]atomic.Uint32, (len(f.index)+31)/32)
			if m := loadSeen(seenPath); m != nil && m.nonce == f.nonce {
				s.seen = m
			}
		}
		return s
	}
	if m := loadLegacyStamps(legacy); m != nil {
		s.edits, s.dirty = m, true
	}
	return s
}

// useJournal makes the stamps the journal's mark vouches for taken while
// c proves their files unchanged, and marks what this run verifies at
// the token c was answered with.
func (s *outputStamps) useJournal(c *journal.Changes, root string) {
	epoch, seq := c.Token()
	if epoch == "" {
		return
	}
	s.vouch, s.epoch, s.seq = c, epoch, seq
	s.dirs = &hashing.DirectDirs{Root: root}
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

// get is taskID's record: this run's (n -1), else the loaded file's, n
// its position there.
func (s *outputStamps) get(taskID string) (rec stampRecord, n int32, ok bool) {
	s.mu.Lock()
	edit, edited := s.edits[taskID]
	s.mu.Unlock()
	if edited {
		if edit == nil {
			return stampRecord{}, -1, false
		}
		return *edit, -1, true
	}
	// The loaded file is replaced only by save, at the run's end.
	pos, ok := s.file.index[taskID]
	if !ok {
		return stampRecord{}, -1, false
	}
	rec, ok = decodeRecord(s.file.body[pos.off:pos.end])
	return rec, pos.n, ok
}

// current reports whether the task's outputs on disk are exactly those vx
// left for key; it answers their paths, those of them with more than one
// link (a write through another link is not reported for this path by
// vxd's change journal) and, when kept, the task's log.
func (s *outputStamps) current(taskID, key, dir string) ([]string, []string, []byte, bool) {
	rec, n, ok := s.get(taskID)
	if !ok || rec.Key != key {
		return nil, nil, nil, false
	}
	paths := make([]string, 0, len(rec.Files))
	var linked []string
	mark := true // proven: still as when marked
	if s.proves(&rec, n, dir) {
		for _, f := range rec.Files {
			paths = append(paths, f.Path)
		}
		s.proven.Add(int64(len(paths)))
	} else {
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
		s.statted.Add(int64(len(paths)))
		mark = len(linked) == 0 && s.markable(dir, paths)
	}
	s.verify(taskID, n, mark)
	var log []byte
	if rec.Log != nil {
		log = []byte(*rec.Log)
	}
	return paths, linked, log, true
}

// proves reports whether the journal proves the record's files as
// stamped: the record (n, of the loaded file) was verified, every file
// with one link, by a run whose token the journal's answer covers (the
// mark), and no file of it changed since.
func (s *outputStamps) proves(rec *stampRecord, n int32, dir string) bool {
	if s.vouch == nil || n < 0 || !s.seen.has(n) {
		return false
	}
	for _, f := range rec.Files {
		if !s.vouch.Unchanged(s.seen.epoch, s.seen.seq, filepath.Join(dir, filepath.FromSlash(f.Path))) {
			return false
		}
	}
	return true
}

// verify notes whether taskID's stamps held after the run's token, every
// file with one link: its record is the loaded file's n-th, or this run's
// (n -1).
func (s *outputStamps) verify(taskID string, n int32, oneLink bool) {
	if s.epoch == "" {
		return
	}
	if n >= 0 {
		w, bit := &s.marked[n/32], uint32(1)<<(n%32)
		if oneLink {
			w.Or(bit)
		} else {
			w.And(^bit)
		}
		return
	}
	s.mu.Lock()
	if oneLink {
		s.fresh[taskID] = true
	} else {
		delete(s.fresh, taskID)
	}
	s.mu.Unlock()
}

// isMarked reports whether the loaded file's n-th record was verified.
func (s *outputStamps) isMarked(n int32) bool {
	return s.marked[n/32].Load()&(uint32(1)<<(n%32)) != 0
}

// record stamps the outputs vx just wrote (restored or produced) for key.
func (s *outputStamps) record(taskID, key, dir string, files []string, log []byte) {
	rec := &stampRecord{Key: key, Files: make([]fileStamp, 0, len(files))}
	oneLink := true
	for _, f := range files {
		st, nlink, ok := stampFileLinks(dir, f)
		if !ok {
			s.forget(taskID)
			return
		}
		rec.Files = append(rec.Files, st)
		oneLink = oneLink && nlink == 1
	}
	if len(log) <= maxStampLog && utf8.Valid(log) {
		text := string(log)
		rec.Log = &text
	}
	s.mu.Lock()
	s.edits[taskID] = rec
	s.dirty = true
	s.mu.Unlock()
	s.verify(taskID, -1, oneLink && s.markable(dir, files))
}

// markable reports whether stamps of files (relative to dir) just found
// or written may be marked: the run has a journal token, and no file is
// reached through a symbolic link.
func (s *outputStamps) markable(dir string, files []string) bool {
	if s.epoch == "" {
		return false
	}
	for _, f := range files {
		if !s.dirs.Direct(filepath.Dir(filepath.Join(dir, filepath.FromSlash(f)))) {
			return false
		}
	}
	return true
}

func (s *outputStamps) forget(taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.fresh, taskID)
	if _, inFile := s.file.index[taskID]; inFile {
		if rec, edited := s.edits[taskID]; !edited || rec != nil {
			s.edits[taskID], s.dirty = nil, true
		}
	} else if _, edited := s.edits[taskID]; edited {
		delete(s.edits, taskID)
		s.dirty = true
	}
}

// save writes what changed, then the journal's mark of the records this
// run verified.
func (s *outputStamps) save() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty {
		b := encodeStamps(&s.file, s.edits)
		if err := hashing.WriteFileAtomic(s.path, b, 0o644); err != nil {
			return err
		}
		// Read back: the mark names this file's nonce and positions.
		f, ok := parseStamps(b)
		if !ok {
			return errStampsEncoding
		}
		s.marked = s.markedIn(&f)
		s.file, s.edits, s.fresh, s.dirty = f, map[string]*stampRecord{}, map[string]bool{}, false
	}
	if s.epoch == "" || s.file.index == nil {
		return nil
	}
	m := &seenMark{nonce: s.file.nonce, epoch: s.epoch, seq: s.seq, bits: make([]byte, 0, 4*len(s.marked))}
	for i := range s.marked {
		m.bits = binary.LittleEndian.AppendUint32(m.bits, s.marked[i].Load())
	}
	m.bits = m.bits[:(len(s.file.index)+7)/8]
	return saveSeen(s.seenPath, m)
}

// markedIn is the run's verified records as bits of f, the file save
// wrote from the loaded one and this run's edits.
func (s *outputStamps) markedIn(f *stampsFile) []atomic.Uint32 {
	marked := make([]atomic.Uint32, (len(f.index)+31)/32)
	for id, pos := range f.index {
		ok := false
		if _, edited := s.edits[id]; edited {
			ok = s.fresh[id]
		} else if old, inOld := s.file.index[id]; inOld {
			ok = s.isMarked(old.n)
		}
		if ok {
			marked[pos.n/32].Or(uint32(1) << (pos.n % 32))
		}
	}
	return marked
}
