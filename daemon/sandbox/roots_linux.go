package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// resolved caches the device files' and directories' resolution: the same
// few for every task.
var resolved sync.Map // path → string ("" when missing)

// resolvedFile is f with every symlink resolved, false when f is missing;
// cached only for the device files and directories.
func resolvedFile(f string) (string, bool) {
	if !slices.Contains(deviceFiles, f) && !slices.Contains(deviceDirs, f) {
		r, err := filepath.EvalSymlinks(f)
		return r, err == nil
	}
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

// Resolve makes the policy's roots symlink-free, as Landlock sees them,
// creating missing write directories (a declared output directory is about
// to be written; Landlock can only name a path that exists). A root vx
// cannot open or create widens nothing and is dropped. Start resolves the
// policy itself; Resolve is for a caller that wants the roots' names.
func (p *Policy) Resolve() { p.resolve(-1, 0, 0) }

// resolve is Resolve, and with a Landlock ruleset (rs >= 0) it also grants
// dirRights beneath each directory root and fileRights on each file root,
// through the descriptor the root was resolved by: one open per root.
func (p *Policy) resolve(rs int, dirRights, fileRights uint64) error {
	var dirs, files []string
	for _, d := range p.WriteDirs {
		device := slices.Contains(deviceDirs, d)
		if device && rs < 0 {
			// Named once for every task; opened only to be granted.
			if r, ok := resolvedFile(d); ok {
				dirs = append(dirs, r)
			}
			continue
		}
		fd, r, err := openRoot(d, device)
		if err != nil {
			continue
		}
		if err := grant(rs, fd, dirRights, r); err != nil {
			return err
		}
		dirs = append(dirs, r)
	}
	for _, f := range p.WriteFiles {
		r, ok := resolvedFile(f)
		if !ok {
			continue
		}
		if rs >= 0 {
			fd, err := unix.Open(r, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			if err := grant(rs, fd, fileRights, r); err != nil {
				return err
			}
		}
		files = append(files, r)
	}
	p.WriteDirs, p.WriteFiles = dirs, files
	return nil
}

// openRoot opens the directory root d (O_PATH) and names it as the kernel
// does. A device directory (the same for every task) is resolved once and
// never created; any other missing root is created.
func openRoot(d string, device bool) (int, string, error) {
	if device {
		r, ok := resolvedFile(d)
		if !ok {
			return -1, "", &os.PathError{Op: "resolve", Path: d, Err: unix.ENOENT}
		}
		fd, err := unix.Open(r, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, "", &os.PathError{Op: "open", Path: r, Err: err}
		}
		return fd, r, nil
	}
	return canonicalDir(d)
}

// grant adds a path-beneath rule for fd (the root named name) to the
// ruleset rs (none: -1), and closes fd.
func grant(rs, fd int, rights uint64, name string) error {
	defer unix.Close(fd)
	if rs < 0 || rights == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(rs, &ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: rights}, 0); err != nil {
		return fmt.Errorf("granting %s in the Landlock ruleset: %w", name, err)
	}
	return nil
}

// canonicalDir opens d (O_PATH), creating it when it is missing, and
// returns the descriptor with d's path as the kernel names it (every
// symlink resolved: the form the observer reads from /proc for a task's
// cwd and descriptors). Asking the kernel through the descriptor takes one
// call where walking the path takes one per component.
func canonicalDir(d string) (int, string, error) {
	fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return -1, "", err
		}
		fd, err = unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, "", &os.PathError{Op: "open", Path: d, Err: err}
	}
	r, err := fdPath(fd)
	if err != nil || !filepath.IsAbs(r) {
		// No /proc: walk the path instead.
		if r, err = filepath.EvalSymlinks(d); err != nil {
			unix.Close(fd)
			return -1, "", err
		}
	}
	return fd, r, nil
}
