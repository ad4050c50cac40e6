package sandbox

import (
	"fmt"

	"github.com/vzn/vx/protocol/wire"
)

// observerName is how violations are learned, as the verdict names it.
const observerName = "seccomp user notification"

// forceUnavailableEnv, set to 1, makes Detect on Linux answer the verdict
// of a host with no sandbox at all (as on macOS). It exists for tests of
// that verdict, which can only run on Linux here.
const forceUnavailableEnv = "VX_SANDBOX_FORCE_UNAVAILABLE"

// unavailable is the verdict of a host where vx has no sandbox at all:
// neither Landlock nor the seccomp observer, because where names why
// (an OS without them: "darwin").
func unavailable(where string) Verdict {
	return Verdict{Enforced: []string{}, Reason: fmt.Sprintf("the sandbox is not available on %s: vx confines tasks with Linux's Landlock and seccomp", where)}
}

// Decision is what a run does with one task's sandbox on a host.
type Decision struct {
	// Refuse: the sandbox is required and the host cannot apply it, so the
	// run starts nothing at all.
	Refuse bool
	// Landlock and Observe are what Start applies; with neither the task
	// runs unconfined.
	Landlock, Observe bool
	// Warning is what the user is told about this task ("" nothing).
	Warning string
	// HostWide: Warning is about the host, not the task (it has no sandbox
	// at all), and a run says it once however many tasks declare one.
	HostWide bool
}

// Decide is the decision for a task whose sandbox has mode (enforce or
// report) and is required or not, on a host whose verdict is v.
func Decide(v Verdict, mode string, required bool) Decision {
	enforce := mode == wire.SandboxEnforce
	if required && ((enforce && !v.Landlock) || v.Observer == "") {
		return Decision{Refuse: true}
	}
	if !v.Landlock && v.Observer == "" {
		return Decision{Warning: v.Reason + "; every task that declares a sandbox runs unconfined", HostWide: true}
	}
	d := Decision{Landlock: enforce && v.Landlock, Observe: v.Observer != ""}
	switch {
	case enforce && !v.Landlock:
		d.Warning = "its sandbox is not enforced: " + v.Reason + "; it runs unconfined"
	case d.Observe:
	case d.Landlock:
		d.Warning = "its sandbox is enforced but violations cannot be recorded: " + v.Reason
	default:
		d.Warning = "its report sandbox cannot observe here: " + v.Reason + "; it runs unconfined"
	}
	return d
}
