package sandbox

import (
	"encoding/binary"

	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// maxHandleSize is MAX_HANDLE_SZ (linux/exportfs.h): the kernel refuses a
// larger handle (EINVAL).
const maxHandleSize = 128

// inspectHandle is the violation of open_by_handle_at opening for writing
// a file outside the policy. The call names no path: vx opens the same
// handle (O_PATH) on the caller's mount descriptor and takes the kernel's
// name of what it opened. A handle that does not open (stale, or not the
// caller's to read) fails the call too, and is no violation.
func (s *Session) inspectHandle(n *seccompNotif) []wire.SandboxViolation {
	tid := int(n.Pid)
	if n.Args[2]&unix.O_PATH != 0 {
		return nil // O_PATH ignores the access mode and O_TRUNC
	}
	head, err := readMem(tid, uintptr(n.Args[1]), 8)
	if err != nil {
		return nil
	}
	size := binary.NativeEndian.Uint32(head)
	if size == 0 || size > maxHandleSize {
		return nil
	}
	b, err := readMem(tid, uintptr(n.Args[1]), 8+int(size))
	if err != nil {
		return nil
	}
	mount, err := callerFile(tid, int32(n.Args[0]))
	if err != nil {
		return nil
	}
	defer unix.Close(mount)
	fh := unix.NewFileHandle(int32(binary.NativeEndian.Uint32(head[4:])), b[8:])
	fd, err := unix.OpenByHandleAt(mount, fh, unix.O_PATH|unix.O_CLOEXEC)
	if err != nil {
		return nil
	}
	path, err := fdPath(fd)
	unix.Close(fd)
	if err != nil || s.policy.Allows(path) {
		return nil
	}
	return []wire.SandboxViolation{{Op: opWrite, Path: path, Process: comm(tid), Pid: tid, Denied: s.policy.Landlock}}
}
