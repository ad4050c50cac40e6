//go:build unix

package privfile

import (
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
