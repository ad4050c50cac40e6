package runner

import (
	"bytes"
	"encoding/binary"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// setDeathSignal does nothing: darwin has no parent-death signal. When vx
// dies, the watchdog kills the task's group.
func setDeathSignal(*syscall.SysProcAttr) {}

// maxRSS is ru_maxrss in bytes (darwin counts bytes).
func maxRSS(ru *syscall.Rusage) int64 { return ru.Maxrss }

// selfExe is vx's own binary, to start again as the watchdog.
func selfExe() (string, error) { return os.Executable() }

// becomeSubreaper does nothing: darwin has no subreapers. A process a
// task orphans becomes launchd's child.
func becomeSubreaper() {}

// endEscapees does nothing: without a subreaper, what a task left outside
// its group is nowhere vx could find it short of searching every process
// of the machine for its marker, which the watchdog does only should vx
// die (markedProcs).
func endEscapees(root, id string, pgid int) {}

// markedProcs lists the processes whose environment marks them as
// started for one of the tasks ids of the workspace at root (taskEnv),
// wherever they are now: the watchdog's search once vx is gone. It reads
// each process's arguments and environment (kern.procargs2), which the
// kernel gives for processes of the same user.
func markedProcs(root string, ids map[string]bool) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	var out []int
	for _, p := range procs {
		pid := int(p.Proc.P_pid)
		if pid <= 1 || pid == os.Getpid() {
			continue
		}
		if env := procEnv(pid); env != nil && hasMarker(env, root, ids) {
			out = append(out, pid)
		}
	}
	return out
}

// procEnv is process pid's environment as it was executed, nil when the
// kernel does not give it. kern.procargs2 holds argc (4 bytes), the
// executable's path, NUL padding, argc arguments, then the environment,
// each NUL-terminated.
func procEnv(pid int) [][]byte {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(b))
	rest := b[4:]
	i := bytes.IndexByte(rest, 0) // the executable's path
	if i < 0 {
		return nil
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	fields := bytes.Split(rest, []byte{0})
	if len(fields) < argc {
		return nil
	}
	var env [][]byte
	for _, kv := range fields[argc:] {
		if len(kv) == 0 {
			break
		}
		env = append(env, kv)
	}
	return env
}
