package server

import "syscall"

// rss is vxd's largest resident set size so far (getrusage's ru_maxrss,
// bytes on macOS): the current one is only told by a Mach call that Go
// reaches without cgo through no package, so vxd status shows the peak.
func rss() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss
}
