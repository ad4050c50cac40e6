package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// inspectMount is the violation of a call changing mounts (mount, umount,
// pivot_root, move_mount), named by the mount point it changes: Landlock
// refuses every such call to a confined task, wherever it is, and in
// report mode a mount beneath the roots would let the task write an
// outside directory under names judged inside. Without Landlock, a caller
// that may not mount (no CAP_SYS_ADMIN) is refused by the kernel and
// changes nothing, so it is no violation.
func (s *Session) inspectMount(c call, n *seccompNotif) []wire.SandboxViolation {
	tid := int(n.Pid)
	if !s.policy.Landlock && !mayMount(tid) {
		return nil
	}
	path := ""
	if len(c.paths) > 0 {
		pa := c.paths[0]
		dirfd := int32(unix.AT_FDCWD)
		if pa.dirfd >= 0 {
			dirfd = int32(n.Args[pa.dirfd])
		}
		if raw, err := readString(tid, uintptr(n.Args[pa.path])); err == nil {
			if a, ok := absolute(tid, dirfd, raw); ok {
				path = a.resolve(true)
			} else {
				path = raw
			}
		}
	}
	return []wire.SandboxViolation{{Op: opMount, Path: path, Process: comm(tid), Pid: tid, Denied: s.policy.Landlock}}
}

// mayMount reports that the caller's effective capabilities hold
// CAP_SYS_ADMIN.
func mayMount(tid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<unix.CAP_SYS_ADMIN) != 0
		}
	}
	return false
}
