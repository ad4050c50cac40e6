package client

import "syscall"

// ownSession makes vxd start in a session of its own: no terminal's
// hangup or signal to the group of the vx that started it reaches it.
func ownSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
