package sandbox

import (
	"os"
	"path/filepath"
	"sync"
)

// resolved caches the device files' resolution: the same few for every task.
var resolved sync.Map // path → string ("" when missing)

func resolvedFile(f string) (string, bool) {
	if v, ok := resolved.Load(f); ok {
		return v.(string), v.(string) != ""
	}
	r, err := filepath.EvalSymlinks(f)
	if err != nil {
		r = ""
	}
	resolved.Store(f, r)
	return r, r != ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Resolve makes the policy's roots symlink-free, as Landlock sees them,
// creating missing write directories (a declared output directory is about
// to be written; Landlock can only name a path that exists).
func (p *Policy) Resolve() {
	var dirs []string
	for _, d := range p.WriteDirs {
		if err := os.MkdirAll(d, 0o755); err != nil && !isDir(d) {
			// A root vx cannot create (a device dir absent here) widens nothing.
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		dirs = append(dirs, d)
	}
	var files []string
	for _, f := range p.WriteFiles {
		if r, ok := resolvedFile(f); ok {
			files = append(files, r)
		}
	}
	p.WriteDirs, p.WriteFiles = dirs, files
}
