package hashing

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The early stat. Without a daemon a run stats every input (11,004 on the
// 1,000-package benchmark, about a third of a fully cached run's CPU), and
// only once the workspace has loaded and the graph is built does it know
// which files are whose inputs. The stat cache, though, already names the
// files the last runs hashed: Prestat stats those while the workspace
// loads (a core is idle much of that time), and marks each whose stat is
// the one the cache recorded. HashFile answers a marked file from the
// cache without a stat of its own; any other file it stats as before.
//
// What a mark proves is what HashFile's own stat would have: the file was
// as hashed at the moment of its stat. That moment comes a little earlier
// in the run, which a run's view already spans (the last input is stat'ed
// tens of milliseconds after the first). The cache itself is not touched,
// so a file edited after its mark is seen by the next run's stat, as one
// edited after HashFile's stat always was.
//
// The records stay as the file holds them, in the buffer it was read
// into, with the offset of each: at 10,000 packages (110,000 records) a
// string, a stat and a hash decoded into slices of their own for each
// were 7 MB beside the file's 11, all live for the whole run.
type prestat struct {
	mu    sync.Mutex    // Prestat's snapshot against Release
	buf   []byte        // the cache file after its magic, never written
	offs  []uint32      // where record i starts in buf: its name's length
	fresh []atomic.Bool // record i was stat'ed as recorded
	stop  atomic.Bool
}

// len is how many records were loaded.
func (p *prestat) len() int { return len(p.offs) }

// name is record i's absolute path, sharing buf.
func (p *prestat) name(i int) string {
	off := int(p.offs[i])
	n := int(binary.LittleEndian.Uint16(p.buf[off:]))
	return unsafe.String(&p.buf[off+2], n)
}

// fields is record i's stat and hash, after its name.
func (p *prestat) fields(i int) []byte {
	off := int(p.offs[i])
	n := int(binary.LittleEndian.Uint16(p.buf[off:]))
	return p.buf[off+2+n : off+2+n+statRecord]
}

// key is record i's recorded stat.
func (p *prestat) key(i int) statKey {
	r := p.fields(i)
	return statKey{
		size:  int64(binary.LittleEndian.Uint64(r)),
		mtime: int64(binary.LittleEndian.Uint64(r[8:])),
		ino:   binary.LittleEndian.Uint64(r[16:]),
		ctime: int64(binary.LittleEndian.Uint64(r[24:])),
	}
}

// hash is record i's recorded content hash.
func (p *prestat) hash(i int) [16]byte { return [16]byte(p.fields(i)[32:statRecord]) }

// Prestat stats every file of the loaded stat cache under root, in
// order, until StopPrestat is called, marking those as recorded (the
// cache may hold other roots' files: a workspace copied with its .vx). It is meant to run on
// its own goroutine alongside the workspace's loading; a Hasher using a
// daemon's change journal (UseChanges) ignores the marks.
func (h *Hasher) Prestat(root string) {
	h.load()
	h.pre.mu.Lock()
	p := prestat{buf: h.pre.buf, offs: h.pre.offs} // Release may drop h.pre's
	fresh := h.pre.fresh
	h.pre.mu.Unlock()
	prefix := filepath.Clean(root) + string(filepath.Separator)
	var st Stat
	for i := range p.len() {
		name := p.name(i)
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if h.pre.stop.Load() {
			return
		}
		if fresh[i].Load() {
			continue // StatListed stat'ed it
		}
		if err := Lstat(name, &st); err != nil || !st.Regular() {
			continue
		}
		if statKeyOf(&st) == p.key(i) {
			fresh[i].Store(true)
		}
	}
}

// StatListed lstats files (slash paths relative to root, in listing
// order) into stats, ok[i] false where files[i] could not be stat'ed, and
// marks each whose stat is the one the stat cache recorded, as Prestat
// does: a run's own stat of a file something else needed stat'ed first
// (a plugin's matched files) is then spared.
func (h *Hasher) StatListed(root string, files []string) (stats []Stat, ok []bool) {
	recs := h.Records(root, files)
	h.pre.mu.Lock()
	p := prestat{buf: h.pre.buf, offs: h.pre.offs} // Release may drop h.pre's
	fresh := h.pre.fresh
	h.pre.mu.Unlock()
	stats, ok = make([]Stat, len(files)), make([]bool, len(files))
	for i, f := range files {
		if Lstat(JoinSlash(root, f), &stats[i]) != nil {
			continue
		}
		ok[i] = true
		if recs != nil && recs[i] >= 0 && int(recs[i]) < p.len() && stats[i].Regular() && statKeyOf(&stats[i]) == p.key(int(recs[i])) {
			fresh[recs[i]].Store(true)
		}
	}
	return stats, ok
}

// StopPrestat ends Prestat at its next file: once the hashing workers
// start they stat what is left themselves.
func (h *Hasher) StopPrestat() { h.pre.stop.Store(true) }

// marked reports whether Prestat marked loaded record rec (-1: none),
// for a Hasher not using a daemon's change journal.
func (p *prestat) marked(rec int32, changes *proven) bool {
	return rec >= 0 && changes == nil && p.fresh[rec].Load()
}

// statKeyOf is the stat cache's key of a stat.
func statKeyOf(st *Stat) statKey {
	return statKey{size: st.Size, mtime: st.Mtime, ino: st.Ino, ctime: st.Ctime}
}

// Release ends h's use for hashing: it drops the stat cache it loaded (at
// 10,000 packages an 11 MB buffer, otherwise live until the process
// ends), after Save has written what it learnt. It stops Prestat too. A
// file hashed after it is hashed as without a cache, and Save writes
// nothing more (it would lose the records dropped).
func (h *Hasher) Release() {
	h.StopPrestat()
	h.mu.Lock()
	h.released = true
	h.m = map[string]statEntry{}
	h.kept = nil
	h.mu.Unlock()
	h.pre.mu.Lock()
	h.pre.buf, h.pre.offs, h.pre.fresh = nil, nil, nil
	h.pre.mu.Unlock()
}
