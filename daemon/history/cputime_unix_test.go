//go:build unix

package history

import (
	"syscall"
	"time"
)

// cpuTime is this process's user+system time: on a loaded machine the
// wall time of a benchmark mostly measures the wait for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
