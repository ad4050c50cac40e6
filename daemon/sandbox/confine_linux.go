package sandbox

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writeAccess is every filesystem right that changes the tree.
const writeAccess = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// fileAccess is what a rule on a single file may grant.
const fileAccess = ll.AccessFSWriteFile | ll.AccessFSTruncate

// ruleset builds the Landlock ruleset (on any thread): writes only beneath
// the policy's roots, TCP connect and bind only when the network is allowed.
// Reads and execution are not handled, so stay allowed. Best effort: an
// older ABI enforces what it knows (the verdict says what). fd is -1 when
// there is nothing to restrict.
func ruleset(p *Policy) (fd int, flags uint32, err error) {
	cfg := landlock.Config{HandledAccessFS: writeAccess}
	if !p.Network {
		cfg.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	cfg = cfg.BestEffort()
	rules := []landlock.Rule{
		landlock.PathAccess(writeAccess, p.WriteDirs...).IgnoreIfMissing(),
		landlock.PathAccess(fileAccess, p.WriteFiles...).IgnoreIfMissing(),
	}
	fd, flags, err = cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	return fd, flags, nil
}

// installObserver installs the filter on this thread with a new listener
// and returns the listener. SPEC_ALLOW keeps the kernel from forcing
// speculation mitigations on the task for being filtered.
func installObserver(prog *unix.SockFprog) (int, error) {
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW, uintptr(unsafe.Pointer(prog)))
	if e != 0 {
		return -1, fmt.Errorf("installing the seccomp observer: %w", e)
	}
	return int(r), nil
}

// sortedCalls lists a table's calls by number, so the filter is the same
// program for the same policy.
func sortedCalls(table map[int]call) []call {
	out := make([]call, 0, len(table))
	for _, c := range table {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].nr < out[j].nr })
	return out
}
