//go:build unix

package connlimit

import "syscall"

// FileLimit is how many files the process may hold open (its soft
// RLIMIT_NOFILE, which the Go runtime raises to the hard limit at start);
// 0 when unknown.
func FileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
