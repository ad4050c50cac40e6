//go:build unix

package privfile

import (
	"fmt"
	"os"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// Owner is the uid that owns the file fi describes (false when the OS
// does not say).
func Owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// userOnly has nothing to add on Unix: the files are created 0600 and the
// directory 0700, and OwnDir refuses another user's.
func userOnly(string) error { return nil }

// OpenToOthers says how path (fi its Lstat) is open to other users ("" when
// it is not): by a mode bit of deny.
func OpenToOthers(path string, fi os.FileInfo, deny os.FileMode) string {
	if fi.Mode().Perm()&deny == 0 {
		return ""
	}
	return fmt.Sprintf("%s is open to other users (mode %v)", path, fi.Mode())
}
