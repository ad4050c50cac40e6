package runner

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/vzn/vx/daemon/hashing"
)

// realDirs answers whether a directory is reached from the workspace root
// through directories alone: a write below a symbolic link is reported
// (if at all) under the path the link leads to, never under the output's,
// so the journal cannot vouch for an output reached through one. Each
// directory is lstat'ed once a run, and only for stamps a run marks.
type realDirs struct {
	root string
	mu   sync.Mutex
	m    map[string]bool
}

// real reports whether dir is root or beneath it through directories.
func (d *realDirs) real(dir string) bool {
	if dir == d.root {
		return true
	}
	if !strings.HasPrefix(dir, d.root+string(filepath.Separator)) {
		return false
	}
	d.mu.Lock()
	v, ok := d.m[dir]
	d.mu.Unlock()
	if ok {
		return v
	}
	var st hashing.Stat
	v = d.real(filepath.Dir(dir)) && hashing.Lstat(dir, &st) == nil && st.FileMode().IsDir()
	d.mu.Lock()
	d.m[dir] = v
	d.mu.Unlock()
	return v
}

// holds reports whether every one of files (relative to dir) is in a
// directory reached without a symbolic link.
func (d *realDirs) holds(dir string, files []string) bool {
	for _, f := range files {
		if !d.real(filepath.Dir(filepath.Join(dir, filepath.FromSlash(f)))) {
			return false
		}
	}
	return true
}
