//go:build unix

package hashing

import (
	"os"
	"syscall"
)

// Lstat stats path without following a final symlink into st, retried
// on EINTR.
func Lstat(path string, st *Stat) error {
	var s syscall.Stat_t
	for {
		err := syscall.Lstat(path, &s)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return err
		}
	}
	fill(st, &s)
	return nil
}

// StatPath stats path, following symlinks, into st.
func StatPath(path string, st *Stat) error {
	var s syscall.Stat_t
	if err := syscall.Stat(path, &s); err != nil {
		return err
	}
	fill(st, &s)
	return nil
}

// fstat stats the open file f into st.
func fstat(f *os.File, st *Stat) error {
	var s syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &s); err != nil {
		return err
	}
	fill(st, &s)
	return nil
}

func fill(st *Stat, s *syscall.Stat_t) {
	mtime, ctime := statTimes(s)
	*st = Stat{Dev: uint64(s.Dev), Size: s.Size, Mtime: mtime, Ctime: ctime, Ino: s.Ino, Nlink: uint64(s.Nlink), Mode: uint32(s.Mode)}
}

// Regular reports whether st is a regular file's.
func (st *Stat) Regular() bool { return st.Mode&syscall.S_IFMT == syscall.S_IFREG }

// Symlink reports whether st is a symbolic link's.
func (st *Stat) Symlink() bool { return st.Mode&syscall.S_IFMT == syscall.S_IFLNK }

// FileMode is the os.FileMode os.Lstat gives for st.
func (st *Stat) FileMode() os.FileMode {
	m := st.Mode
	mode := os.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= os.ModeDevice
	case syscall.S_IFCHR:
		mode |= os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= os.ModeDir
	case syscall.S_IFIFO:
		mode |= os.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= os.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= os.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= os.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= os.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= os.ModeSticky
	}
	return mode
}

// Dir reports whether st is a directory's.
func (st *Stat) Dir() bool { return st.Mode&syscall.S_IFMT == syscall.S_IFDIR }
