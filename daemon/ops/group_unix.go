//go:build unix

package ops

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// ownGroup makes the child start as the leader of a group of its own, so
// that one signal reaches it and whatever it started.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to every process of the group.
func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

// passFile gives cmd f as an inherited descriptor, and answers the number
// the child finds it under.
func passFile(cmd *exec.Cmd, f *os.File) string {
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	return strconv.Itoa(2 + len(cmd.ExtraFiles))
}

// inherited is the file this process inherited as descriptor n, kept
// from the processes it starts.
func inherited(n int, name string) *os.File {
	syscall.CloseOnExec(n)
	return os.NewFile(uintptr(n), name)
}

// isPipe says whether descriptor n is a pipe.
func isPipe(n int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(n, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

// writable says why this user cannot create files in dir (access(2)).
func writable(dir string) error {
	const wOK, xOK = 2, 1
	return syscall.Access(dir, wOK|xOK)
}
