package harness

import (
	"bytes"
	"os"
	"strconv"
)

// Cmdline is pid's command line, arguments joined by spaces ("" when it
// is gone), from /proc/PID/cmdline.
func Cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
}
