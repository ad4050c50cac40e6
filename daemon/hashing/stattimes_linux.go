package hashing

import "syscall"

// statTimes is st's modification and inode change times in nanoseconds
// since the epoch. It is the one place that knows where the OS keeps them
// (Linux: Mtim, Ctim), and small enough to inline into the stat loops.
func statTimes(st *syscall.Stat_t) (mtime, ctime int64) {
	return st.Mtim.Sec*1e9 + st.Mtim.Nsec, st.Ctim.Sec*1e9 + st.Ctim.Nsec
}
