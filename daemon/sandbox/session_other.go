//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"

	"github.com/vzn/vx/protocol/wire"
)

// Detect answers that this OS has no sandbox: Landlock and seccomp are
// Linux's. Decide then runs every sandboxed task unconfined with one
// warning a run, and refuses a required one before anything runs.
func Detect() Verdict { return unavailable(runtime.GOOS) }

// errUnavailable is Start's answer here; Decide never asks for it.
var errUnavailable = errors.New(unavailable(runtime.GOOS).Reason)

// Session is a confined task; none is ever started on this OS.
type Session struct{}

// Start refuses: this OS cannot confine a task.
func Start(*exec.Cmd, *Policy) (*Session, error) { return nil, errUnavailable }

// Wait is never reached: Start returns no Session here.
func (*Session) Wait() error { return errUnavailable }

// Finish answers no violations: nothing was observed.
func (*Session) Finish() []wire.SandboxViolation { return nil }
