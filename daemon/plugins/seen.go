package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"sync"

	"github.com/vzn/vx/daemon/hashing"
)

// Seen is what the plugins of one load learned of the matched files: each
// file's stamp and content hash, taken once. A nil *Seen shares nothing.
type Seen struct {
	// StatListed, when set, lstats matched files (in listing order) for
	// the load, in one batch that also spares the run's own stat of them
	// (runner.Early.StatListed); nil: each is lstat'ed here.
	StatListed func(files []string) ([]hashing.Stat, []bool)

	batch   sync.Mutex // one StatListed at a time: the second finds the first's
	mu      sync.Mutex
	stamps  map[string]stamp
	hashes  map[string]string
	matches map[string][]string // by key(globs...)
}

// statAll stamps the workspace-relative files under root through
// StatListed, those not stamped yet, in one batch.
func (s *Seen) statAll(root string, files []string) {
	if s == nil || s.StatListed == nil {
		return
	}
	s.batch.Lock()
	defer s.batch.Unlock()
	var todo []string
	s.mu.Lock()
	for _, f := range files {
		if _, ok := s.stamps[filepath.Join(root, filepath.FromSlash(f))]; !ok {
			todo = append(todo, f)
		}
	}
	s.mu.Unlock()
	if len(todo) == 0 {
		return
	}
	stats, ok := s.StatListed(todo)
	if len(stats) != len(todo) || len(ok) != len(todo) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stamps == nil {
		s.stamps = make(map[string]stamp, len(todo))
	}
	for i, f := range todo {
		var st stamp
		if ok[i] {
			st = stampOfStat(&stats[i])
		}
		s.stamps[filepath.Join(root, filepath.FromSlash(f))] = st
	}
}

// match is Match(globs, files), made once for each set of globs.
func (s *Seen) match(globs, files []string) []string {
	if s == nil {
		return Match(globs, files)
	}
	// Length-prefixed: a glob may hold any character, a NUL included.
	k := key(globs...)
	s.mu.Lock()
	out, ok := s.matches[k]
	s.mu.Unlock()
	if ok {
		return out
	}
	out = Match(globs, files)
	s.mu.Lock()
	if s.matches == nil {
		s.matches = map[string][]string{}
	}
	s.matches[k] = out
	s.mu.Unlock()
	return out
}

func (s *Seen) stamp(abs string) stamp {
	if s == nil {
		return stampOf(abs)
	}
	s.mu.Lock()
	st, ok := s.stamps[abs]
	s.mu.Unlock()
	if ok {
		return st
	}
	st = stampOf(abs)
	s.mu.Lock()
	if s.stamps == nil {
		s.stamps = map[string]stamp{}
	}
	s.stamps[abs] = st
	s.mu.Unlock()
	return st
}

// hash is the sha256 of abs's content, read once; a failure is not kept.
func (s *Seen) hash(abs string) (string, error) {
	if s != nil {
		s.mu.Lock()
		h, ok := s.hashes[abs]
		s.mu.Unlock()
		if ok {
			return h, nil
		}
	}
	sum := sha256.New()
	if err := hashFile(abs, sum); err != nil {
		return "", err
	}
	h := hex.EncodeToString(sum.Sum(nil))
	if s != nil {
		s.mu.Lock()
		if s.hashes == nil {
			s.hashes = map[string]string{}
		}
		s.hashes[abs] = h
		s.mu.Unlock()
	}
	return h, nil
}
