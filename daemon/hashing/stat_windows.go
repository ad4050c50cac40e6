package hashing

import (
	"os"

	"golang.org/x/sys/windows"
)

// Lstat stats path without following a final symlink (reparse point)
// into st.
func Lstat(path string, st *Stat) error {
	return statOpen(path, windows.FILE_FLAG_OPEN_REPARSE_POINT, st)
}

// StatPath stats path, following symlinks, into st.
func StatPath(path string, st *Stat) error { return statOpen(path, 0, st) }

// statOpen opens path for no access but its attributes (directories
// too) and reads its information by handle.
func statOpen(path string, flags uint32, st *Stat) error {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	h, err := windows.CreateFile(p, 0, share, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|flags, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return byHandle(h, st)
}

// fstat stats the open file f into st.
func fstat(f *os.File, st *Stat) error { return byHandle(windows.Handle(f.Fd()), st) }

// byHandle fills st from GetFileInformationByHandle: the volume serial
// number and the file index are the identity (folded into Ino), the last
// write time both times (Windows keeps no inode change time there).
func byHandle(h windows.Handle, st *Stat) error {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return err
	}
	mtime := d.LastWriteTime.Nanoseconds()
	index := uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)
	*st = Stat{
		Size:  int64(d.FileSizeHigh)<<32 | int64(d.FileSizeLow),
		Mtime: mtime, Ctime: mtime,
		Dev:   uint64(d.VolumeSerialNumber),
		Ino:   index ^ uint64(d.VolumeSerialNumber)<<32,
		Nlink: uint64(d.NumberOfLinks),
		Mode:  d.FileAttributes,
	}
	return nil
}

// Regular reports whether st is a regular file's.
func (st *Stat) Regular() bool {
	return st.Mode&(windows.FILE_ATTRIBUTE_DIRECTORY|windows.FILE_ATTRIBUTE_REPARSE_POINT|windows.FILE_ATTRIBUTE_DEVICE) == 0
}

// Symlink reports whether st is a symbolic link's (any reparse point:
// os.Readlink reads junctions too).
func (st *Stat) Symlink() bool { return st.Mode&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 }

// FileMode is the os.FileMode os.Lstat gives for st, as Go's os package
// makes it from the attributes.
func (st *Stat) FileMode() os.FileMode {
	var mode os.FileMode = 0o666
	if st.Mode&windows.FILE_ATTRIBUTE_READONLY != 0 {
		mode = 0o444
	}
	switch {
	case st.Symlink():
		return os.ModeSymlink | 0o777
	case st.Mode&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		return os.ModeDir | 0o777
	}
	return mode
}

// Dir reports whether st is a directory's (not a link to one).
func (st *Stat) Dir() bool {
	return st.Mode&windows.FILE_ATTRIBUTE_DIRECTORY != 0 && !st.Symlink()
}
