package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Descriptors the helper receives.
const (
	policyFD   = 3 // the Policy, JSON, read to EOF
	listenerFD = 4 // a unix socket: the seccomp listener goes back on it
)

// helperExit is the helper's exit code when it cannot confine the task.
const helperExit = 125

// maxPolicy bounds what the helper reads from its policy descriptor.
const maxPolicy = 16 << 20

// IsHelper reports whether argv0 starts vx as the sandbox helper.
func IsHelper(argv0 string) bool { return argv0 == HelperName }

// HelperMain confines this process and execs the task's shell; it returns
// only by exiting. Everything happens on one locked thread: Landlock, no_new_privs
// and the seccomp filter bind the calling thread, and the exec on that
// same thread carries them into the shell.
func HelperMain() {
	runtime.LockOSThread()
	if err := helper(); err != nil {
		fmt.Fprintf(os.Stderr, "vx sandbox: %v\n", err)
		os.Exit(helperExit)
	}
}

func helper() error {
	f := os.NewFile(policyFD, "policy")
	b, err := io.ReadAll(io.LimitReader(f, maxPolicy))
	f.Close()
	if err != nil {
		return fmt.Errorf("reading the policy: %w", err)
	}
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("decoding the policy: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if p.Landlock {
		if err := restrict(&p); err != nil {
			return err
		}
	}
	if p.Observe {
		if err := installObserver(&p); err != nil {
			return err
		}
	} else {
		unix.Close(listenerFD)
	}
	err = syscall.Exec("/bin/sh", []string{"/bin/sh", "-c", p.Command}, os.Environ())
	return fmt.Errorf("starting /bin/sh: %w", err)
}

// writeAccess is every filesystem right that changes the tree.
const writeAccess = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// fileAccess is what a rule on a single file may grant.
const fileAccess = ll.AccessFSWriteFile | ll.AccessFSTruncate

// restrict applies the Landlock ruleset to this thread: writes only beneath
// the policy's roots, TCP connect and bind only when the network is allowed.
// Reads and execution are not handled, so stay allowed. Best effort: an
// older ABI enforces what it knows (the verdict says what).
func restrict(p *Policy) error {
	cfg := landlock.Config{HandledAccessFS: writeAccess}
	if !p.Network {
		cfg.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	cfg = cfg.BestEffort()
	rules := []landlock.Rule{
		landlock.PathAccess(writeAccess, p.WriteDirs...).IgnoreIfMissing(),
		landlock.PathAccess(fileAccess, p.WriteFiles...).IgnoreIfMissing(),
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return nil
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// installObserver installs the filter with a new listener and sends the
// listener to vx over the listener socket.
func installObserver(p *Policy) error {
	table := calls(p.Network)
	ins, err := filter(table)
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(ins)), Filter: &ins[0]}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(ins)
	if e != 0 {
		return fmt.Errorf("installing the seccomp observer: %w", e)
	}
	notify := int(r)
	err = unix.Sendmsg(listenerFD, []byte{1}, unix.UnixRights(notify), nil, 0)
	unix.Close(notify)
	unix.Close(listenerFD)
	if err != nil {
		return fmt.Errorf("handing the observer to vx: %w", err)
	}
	return nil
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
