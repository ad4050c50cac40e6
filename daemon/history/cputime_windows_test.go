package history

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is this process's user+system time (GetProcessTimes): on a
// loaded machine the wall time of a benchmark mostly measures the wait for
// a CPU.
func cpuTime() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
