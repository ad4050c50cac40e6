package runner

import (
	"os"
	"strconv"
	"strings"
)

// totalMemory is the machine's memory in bytes (MemTotal of
// /proc/meminfo), 0 when unknown.
func totalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
