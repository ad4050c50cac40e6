package hashing

import (
	"path/filepath"
	"strings"
	"sync"
)

// DirectDirs answers whether a directory is reached from Root through
// directories alone, no symbolic link on the way: what is written below a
// link is reported by vxd's journal (if at all) under the path the link
// leads to, so the journal vouches only for paths reached directly. Each
// directory is lstat'ed once; a DirectDirs with its Root set is ready and
// safe for concurrent use.
type DirectDirs struct {
	Root string
	mu   sync.Mutex
	m    map[string]bool
}

// Direct reports whether dir is Root or beneath it through directories.
func (d *DirectDirs) Direct(dir string) bool {
	if dir == d.Root {
		return true
	}
	if !strings.HasPrefix(dir, d.Root+string(filepath.Separator)) {
		return false
	}
	d.mu.Lock()
	v, ok := d.m[dir]
	d.mu.Unlock()
	if ok {
		return v
	}
	var st Stat
	v = Lstat(dir, &st) == nil && st.Dir() && d.Direct(filepath.Dir(dir))
	d.Set(dir, v)
	return v
}

// Set records what something else proved of dir (a directory a walk
// entered), sparing its lstat.
func (d *DirectDirs) Set(dir string, v bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]bool{}
	}
	d.m[dir] = v
}
