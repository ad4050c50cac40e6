package harness

import "syscall"

// DieWithTest does nothing: darwin has no parent-death signal. A server a
// test binary killed with -9 started keeps running, in its temp dir, until
// it is stopped by hand.
func DieWithTest(attr *syscall.SysProcAttr, sig syscall.Signal) {}
