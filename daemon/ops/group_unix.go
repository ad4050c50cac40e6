package ops

import "syscall"

// ownGroup makes the child start as the leader of a group of its own, so
// that one signal reaches it and whatever it started.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to every process of the group.
func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
