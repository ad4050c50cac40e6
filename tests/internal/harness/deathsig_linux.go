package harness

import "syscall"

// DieWithTest has the kernel send sig to a process the test starts when
// the thread that started it (the test binary) dies, even of kill -9.
func DieWithTest(attr *syscall.SysProcAttr, sig syscall.Signal) { attr.Pdeathsig = sig }
