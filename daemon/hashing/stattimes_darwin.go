package hashing

import "syscall"

// statTimes is st's modification and inode change times in nanoseconds
// since the epoch. It is the one place that knows where the OS keeps them
// (macOS: Mtimespec, Ctimespec), and small enough to inline into the stat
// loops.
func statTimes(st *syscall.Stat_t) (mtime, ctime int64) {
	return st.Mtimespec.Sec*1e9 + st.Mtimespec.Nsec, st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec
}
