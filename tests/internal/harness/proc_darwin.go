package harness

import (
	"bytes"
	"encoding/binary"
	"strings"

	"golang.org/x/sys/unix"
)

// Cmdline is pid's command line, arguments joined by spaces ("" when it
// is gone), from sysctl kern.procargs2: argc (4 bytes), the executable's
// path, NUL padding, then argc NUL-terminated arguments (the environment
// follows).
func Cmdline(pid int) string {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return ""
	}
	argc := int(binary.LittleEndian.Uint32(b))
	rest := b[4:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = bytes.TrimLeft(rest[i:], "\x00")
	}
	var args []string
	for len(args) < argc && len(rest) > 0 {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			i = len(rest)
		}
		args = append(args, string(rest[:i]))
		rest = rest[min(i+1, len(rest)):]
	}
	return strings.Join(args, " ")
}
