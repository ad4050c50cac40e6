package runner

import "syscall"

// setDeathSignal has the kernel kill the task's first process when vx
// dies, before the watchdog does.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// maxRSS is ru_maxrss in bytes (Linux counts KiB).
func maxRSS(ru *syscall.Rusage) int64 { return ru.Maxrss * 1024 }

// selfExe is the path that starts vx's own binary again (the watchdog),
// even when the file was replaced or removed since vx started.
func selfExe() (string, error) { return "/proc/self/exe", nil }
