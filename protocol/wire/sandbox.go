package wire

import "fmt"

// Sandbox modes a task may declare.
const (
	SandboxEnforce = "enforce" // a violation is denied (EACCES) and recorded
	SandboxReport  = "report"  // a violation goes through and is recorded
)

// SandboxViolation is one access a sandboxed task made outside its
// declaration. Path is set for a filesystem operation, Address for a
// network one; Process is the kernel's name (comm) of the process that
// made it. Denied says whether the kernel refused it (enforce mode with
// Landlock) or let it through (report mode, or no Landlock on the host).
type SandboxViolation struct {
	Op      string `json:"op"`
	Path    string `json:"path,omitempty"`
	Address string `json:"address,omitempty"`
	Process string `json:"process"`
	Pid     int    `json:"pid"`
	Denied  bool   `json:"denied"`
}

// SandboxVerdict is what the sandbox runtime can do on this host, as
// vx info and getWorkspaceInfo report it.
type SandboxVerdict struct {
	// Landlock is true when the kernel confines tasks; ABI is its
	// Landlock ABI version (0 without Landlock).
	Landlock bool `json:"landlock"`
	ABI      int  `json:"abi"`
	// Enforced lists what an enforce-mode task is denied here:
	// "filesystem writes", "file truncation", "TCP connect/bind".
	Enforced []string `json:"enforced"`
	// Observer names how violations are learned ("seccomp user
	// notification"), empty when they cannot be learned here.
	Observer string `json:"observer"`
	// Reason says, when Landlock or the observer is missing, why.
	Reason string `json:"reason,omitempty"`
	// Tasks counts the workspace's tasks that declare a sandbox.
	Tasks int `json:"tasks"`
}

// String renders a violation as the run's footer and vx last say it:
// "denied create /home/u/.npmrc (node, pid 42)".
func (v SandboxViolation) String() string {
	verb := "reported"
	if v.Denied {
		verb = "denied"
	}
	what := v.Path
	if what == "" {
		what = v.Address
	}
	return fmt.Sprintf("%s %s %s (%s, pid %d)", verb, v.Op, what, v.Process, v.Pid)
}
