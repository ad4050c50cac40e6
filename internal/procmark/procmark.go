// Package procmark finds and ends the processes that carry a mark in
// their environment, wherever they went. A process group's kill misses a
// process that left the group (a new session, a double fork); the mark
// does not: a process started with it passes it to every descendant that
// keeps its environment. vx marks each task's processes (daemon/runner)
// and each plugin request's (daemon/plugins) and, when one ends, sweeps
// what carries its mark.
//
// Where they are looked for depends on the host, one small function per
// operating system: on Linux among the caller's children where the
// caller is the subreaper of what it starts (BecomeSubreaper: vx running
// tasks without a cgroup), so that an orphan becomes its child rather
// than init's, and is reaped once killed, else (vxd, which lives long)
// among all processes; on darwin, which has no subreaper, in the process table, among the
// user's processes started since the holder did; on Windows nowhere: a
// Job Object (internal/jobobject) holds every process the holder starts
// and ends them with it.
package procmark

import "bytes"

// RootEnv is the variable every mark sets to its workspace's root.
const RootEnv = "VX_WORKSPACE_ROOT"

// Mark selects the processes whose environment holds RootEnv=Root and
// the variable Var set to one of IDs: those started for one of the
// holders IDs names (a task, a plugin request) in the workspace at Root.
type Mark struct {
	Root string
	Var  string
	IDs  map[string]bool
}

// Env is the entries (NAME=VALUE) that mark a process started for id.
func (m Mark) Env(id string) []string {
	return []string{RootEnv + "=" + m.Root, m.Var + "=" + id}
}

// In says whether env (NAME=VALUE entries, as a process was executed
// with them) carries the mark.
func (m Mark) In(env [][]byte) bool {
	inRoot, ofHolder := false, false
	for _, kv := range env {
		if v, ok := bytes.CutPrefix(kv, []byte(RootEnv+"=")); ok {
			inRoot = string(v) == m.Root
		} else if v, ok := bytes.CutPrefix(kv, []byte(m.Var+"=")); ok {
			ofHolder = m.IDs[string(v)]
		}
	}
	return inRoot && ofHolder
}
