package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/plugin"
)

// Seen is what the plugins of one load learned of the matched files: each
// file's stamp and content hash, taken once. A nil *Seen shares nothing.
type Seen struct {
	// StatListed, when set, lstats matched files (in listing order) for
	// the load, in one batch that also spares the run's own stat of them
	// (runner.Early.StatListed); nil: each is lstat'ed here.
	StatListed func(files []string) ([]hashing.Stat, []bool)
	// Sum, when set, is the run's content hash of a workspace-relative
	// file (runner.Early.JournalListing): vxd's change journal proves
	// most files unchanged without a stat. It fails when no journal
	// answers; the file is then stat'ed.
	Sum func(rel string) (string, error)

	batch   sync.Mutex // one StatListed at a time: the second finds the first's
	looking sync.Mutex // one look at a time, one match at a time: likewise
	mu      sync.Mutex
	stamps  map[string]stamp    // by workspace-relative path
	hashes  map[string]string   // by absolute path
	sums    map[string]string   // by workspace-relative path
	matches map[string][]string // by key(globs...)
	// projects is the last projectsKey taken, and the list it was taken
	// of (its first element and length: a load's plugins share one).
	projects struct {
		first *plugin.Project
		n     int
		key   string
	}
}

// projectsKey is projectsKey(projects), taken once for the plugins of a
// load, which all are given the same projects.
func (s *Seen) projectsKey(projects []plugin.Project) string {
	if s == nil || len(projects) == 0 {
		return projectsKey(projects)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := &s.projects; p.first != &projects[0] || p.n != len(projects) {
		p.first, p.n, p.key = &projects[0], len(projects), projectsKey(projects)
	}
	return s.projects.key
}

// statAll stamps the workspace-relative files through
// StatListed, those not stamped yet, in one batch.
func (s *Seen) statAll(files []string) {
	if s == nil || s.StatListed == nil {
		return
	}
	s.batch.Lock()
	defer s.batch.Unlock()
	var todo []string
	s.mu.Lock()
	for _, f := range files {
		if _, ok := s.stamps[f]; !ok {
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
		s.stamps[f] = st
	}
}

// match is Match(globs, files), made once for each set of globs.
func (s *Seen) match(globs, files []string) []string {
	if s == nil {
		return Match(globs, files)
	}
	s.looking.Lock()
	defer s.looking.Unlock()
	// Length-prefixed: a glob may hold any character, a NUL included.
	out, _ := remembered(&s.mu, &s.matches, key(globs...), func() ([]string, error) { return Match(globs, files), nil })
	return out
}

// look takes the sum, or else the stamp, of each of files (relative to
// root) not taken yet: the plugins of a load that match the same files
// (each on its own goroutine) take each once, the second finding the
// first's.
func (s *Seen) look(root string, files []string) {
	if s == nil {
		return
	}
	s.looking.Lock()
	defer s.looking.Unlock()
	if s.Sum == nil {
		s.statAll(files)
	}
	for _, f := range files {
		if _, ok := s.sum(f); !ok {
			s.stamp(root, f)
		}
	}
}

// stamp is the stamp of rel, a workspace-relative file under root,
// taken once.
func (s *Seen) stamp(root, rel string) stamp {
	abs := func() string { return hashing.JoinSlash(root, rel) }
	if s == nil {
		return stampOf(abs())
	}
	st, _ := remembered(&s.mu, &s.stamps, rel, func() (stamp, error) { return stampOf(abs()), nil })
	return st
}

// sum is Sum(rel), asked once; ok is false without an answer, and for a
// symbolic link, whose sum is of its target's path, not of the content
// it is hashed through to.
func (s *Seen) sum(rel string) (string, bool) {
	if s == nil || s.Sum == nil {
		return "", false
	}
	v, err := remembered(&s.mu, &s.sums, rel, func() (string, error) { return s.Sum(rel) })
	if err != nil || v == "" || strings.HasPrefix(v, "link:") {
		return "", false
	}
	return v, true
}

// hash is the sha256 of abs's content, read once; a failure is not kept.
func (s *Seen) hash(abs string) (string, error) {
	read := func() (string, error) {
		sum := sha256.New()
		if err := hashFile(abs, sum); err != nil {
			return "", err
		}
		return hex.EncodeToString(sum.Sum(nil)), nil
	}
	if s == nil {
		return read()
	}
	return remembered(&s.mu, &s.hashes, abs, read)
}

// remembered answers (*m)[k], or what f makes of it, kept in *m (made on
// first use) unless f fails; mu guards *m, not f.
func remembered[V any](mu *sync.Mutex, m *map[string]V, k string, f func() (V, error)) (V, error) {
	mu.Lock()
	v, ok := (*m)[k]
	mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := f()
	if err != nil {
		return v, err
	}
	mu.Lock()
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
	mu.Unlock()
	return v, nil
}
