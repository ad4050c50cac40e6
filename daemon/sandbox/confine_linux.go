package sandbox

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writeAccess is every filesystem right that changes the tree.
const writeAccess = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// fileAccess is what a rule on a single file may grant.
const fileAccess = ll.AccessFSWriteFile | ll.AccessFSTruncate

// landlockABI is the kernel's Landlock ABI version, asked once; 0 without.
var landlockABI = sync.OnceValue(func() int {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return abi
})

// minLandlockABI is the oldest ABI vx applies: ABI 1 cannot grant moving
// a file between directories (the refer right, ABI 2), so every rename or
// link across directories would be denied even inside the roots.
const minLandlockABI = 2

// ruleset creates the Landlock ruleset (on any thread) for a policy: it
// handles every right that changes the filesystem this ABI knows and, when
// the network is denied, TCP connect and bind; the roots are granted by
// resolve. Reads and execution are not handled, so stay allowed. It
// returns the rights a directory root and a file root are granted; fd is
// -1 when this kernel's Landlock is too old to apply (the verdict says so).
func ruleset(network bool) (fd int, dirRights, fileRights uint64, err error) {
	abi := landlockABI()
	if abi < minLandlockABI {
		return -1, 0, 0, nil
	}
	handled := uint64(writeAccess)
	if abi < 3 {
		handled &^= ll.AccessFSTruncate
	}
	attr := ll.RulesetAttr{HandledAccessFS: handled}
	if !network && abi >= 4 {
		attr.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if fd, err = ll.LandlockCreateRuleset(&attr, 0); err != nil {
		return -1, 0, 0, fmt.Errorf("building the Landlock ruleset: landlock_create_ruleset: %w", err)
	}
	return fd, handled, fileAccess & handled, nil
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
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}
