package history

import (
	"bytes"
	"os"
	"strconv"
)

// procStart is pid's start time in clock ticks since boot (field 22 of
// /proc/PID/stat), or 0 when it is gone or a zombie.
func procStart(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return 0
	}
	n, err := strconv.ParseInt(string(f[19]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
