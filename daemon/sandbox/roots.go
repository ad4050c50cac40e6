package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// resolved caches the device files' and directories' resolution: the same
// few for every task.
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
		if slices.Contains(deviceDirs, d) {
			// The same for every task: resolved once, never created.
			if r, ok := resolvedFile(d); ok {
				dirs = append(dirs, r)
			}
			continue
		}
		r, err := canonicalDir(d)
		if err != nil {
			// A root vx cannot create (a device dir absent here) widens nothing.
			continue
		}
		dirs = append(dirs, r)
	}
	var files []string
	for _, f := range p.WriteFiles {
		if r, ok := resolvedFile(f); ok {
			files = append(files, r)
		}
	}
	p.WriteDirs, p.WriteFiles = dirs, files
}

// canonicalDir is d's path as the kernel names it (every symlink resolved:
// the form the observer reads from /proc for a task's cwd and descriptors),
// creating d when it is missing. Asking the kernel through an O_PATH
// descriptor takes three system calls where walking the path takes one per
// component.
func canonicalDir(d string) (string, error) {
	fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		fd, err = unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return "", &os.PathError{Op: "open", Path: d, Err: err}
	}
	defer unix.Close(fd)
	r, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !filepath.IsAbs(r) {
		// No /proc: walk the path instead.
		return filepath.EvalSymlinks(d)
	}
	return r, nil
}
