//go:build unix

package connlimit

import "syscall"

// OpenFileLimit is the process's soft RLIMIT_NOFILE, which the Go runtime
// raises to the hard limit at start; false when it cannot be read.
func OpenFileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return r.Cur, true
}
