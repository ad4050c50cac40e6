package history

import "golang.org/x/sys/unix"

// zombie is SZOMB, a kinfo_proc's p_stat for a process that exited and
// was not reaped yet (<sys/proc.h>).
const zombie = 5

// procStart is pid's start time in microseconds since the epoch, as the
// kernel's kinfo_proc (sysctl kern.proc.pid) keeps it, or 0 when it is
// gone or a zombie. macOS has no /proc.
func procStart(pid int) int64 {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid || kp.Proc.P_stat == zombie {
		return 0
	}
	t := kp.Proc.P_starttime
	return t.Sec*1_000_000 + int64(t.Usec)
}
