// Package privfile opens the files vx and vxd keep in .vx/daemon without
// following what another user may have planted there while the directory
// was open to them: a symlink is refused rather than followed (which would
// append to, or create, a file wherever it points, as the user running
// vxd), and so is a file with other hard links.
package privfile

import (
	"fmt"
	"os"
)

// Open opens path with flag (creating it with perm when flag says so),
// refusing a symlink, and anything but a regular file with one link.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symlink: vx opens no file of .vx/daemon through one (remove it)", path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || links(fi) > 1) {
		err = fmt.Errorf("%s is not a file of its own (%v, %d links): vx opens only its own files in .vx/daemon (remove it)", path, fi.Mode().Type(), links(fi))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// PrivateDir makes dir (and its parents) if need be and leaves it this
// user's alone: OwnDir's checks, then mode 0700 whatever it was made with.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := OwnDir(dir); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// OwnDir refuses dir unless it is a directory of this user (not a
// symlink): one that another user owns, they may open to themselves again
// at any time. Where permissions are an access list (Windows), it makes
// dir and what is created in it readable by this user alone.
func OwnDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%v): vx keeps the daemon's state only in a directory of its own", dir, fi.Mode().Type())
	}
	if uid, ok := Owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d): vxd keeps its token there, so it serves only from a directory of its own (remove it)", dir, uid, os.Geteuid())
	}
	return userOnly(dir)
}
