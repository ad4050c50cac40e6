package runner

import "golang.org/x/sys/unix"

// machineMemory is the machine's memory in bytes (hw.memsize), 0 if unknown.
func machineMemory() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return 0
	}
	return int64(n)
}
