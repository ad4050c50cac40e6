//go:build unix && !linux

package plugins

import "syscall"

// setDeathSignal does nothing: this system has no parent-death signal. A
// plugin asked by a vx killed -9 runs on until it ends (its timeout was
// vx's to enforce).
func setDeathSignal(*syscall.SysProcAttr) {}
