package hashing

import (
	"path/filepath"
	"strings"
	"sync/atomic"
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
type prestat struct {
	names  []string      // the loaded records' paths, in the file's order
	keys   []statKey     // and their recorded stats
	hashes [][16]byte    // and hashes
	fresh  []atomic.Bool // record i was stat'ed as recorded
	stop   atomic.Bool
}

// add keeps a loaded record.
func (p *prestat) add(name string, k statKey, sum [16]byte) {
	p.names = append(p.names, name)
	p.keys = append(p.keys, k)
	p.hashes = append(p.hashes, sum)
}

// Prestat stats every file of the loaded stat cache under root, in
// order, until StopPrestat is called, marking those as recorded (the
// cache may hold other roots' files: a workspace copied with its .vx). It is meant to run on
// its own goroutine alongside the workspace's loading; a Hasher using a
// daemon's change journal (UseChanges) ignores the marks.
func (h *Hasher) Prestat(root string) {
	h.load()
	p := &h.pre
	prefix := filepath.Clean(root) + string(filepath.Separator)
	var st Stat
	for i, name := range p.names {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if p.stop.Load() {
			return
		}
		if err := Lstat(name, &st); err != nil || !st.Regular() {
			continue
		}
		if statKeyOf(&st) == p.keys[i] {
			p.fresh[i].Store(true)
		}
	}
}

// StopPrestat ends Prestat at its next file: once the hashing workers
// start they stat what is left themselves.
func (h *Hasher) StopPrestat() { h.pre.stop.Store(true) }

// marked reports whether Prestat marked loaded record rec (-1: none),
// for a Hasher not using a daemon's change journal.
func (p *prestat) marked(rec int32, changes *Changes) bool {
	return rec >= 0 && changes == nil && p.fresh[rec].Load()
}

// statKeyOf is the stat cache's key of a stat.
func statKeyOf(st *Stat) statKey {
	return statKey{size: st.Size, mtime: st.Mtime, ino: st.Ino, ctime: st.Ctime}
}
