package history

import "golang.org/x/sys/windows"

// stillActive is the exit code GetExitCodeProcess answers for a process
// that has not exited (STILL_ACTIVE).
const stillActive = 259

// procStart is pid's creation time in 100-nanosecond intervals since
// 1601 (GetProcessTimes), or 0 when no such process is alive: gone, or
// exited with a handle still open somewhere (its exit code is no longer
// STILL_ACTIVE; one that exits with 259 itself reads as alive).
func procStart(pid int) int64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil || code != stillActive {
		return 0
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return int64(created.HighDateTime)<<32 | int64(created.LowDateTime)
}
