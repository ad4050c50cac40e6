package plugins

import "syscall"

// setDeathSignal has the kernel kill a plugin's process when vx (or vxd)
// dies while asking it: a vx killed -9 runs no deferred kill, and the
// plugin would run on until it ended by itself.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
