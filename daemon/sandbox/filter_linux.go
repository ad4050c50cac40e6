package sandbox

import (
	"fmt"
	"sort"
	"sync"

	"golang.org/x/sys/unix"
)

// Operations a violation names.
const (
	opWrite    = "write"
	opCreate   = "create"
	opTruncate = "truncate"
	opMkdir    = "mkdir"
	opRemove   = "remove"
	opRename   = "rename"
	opLink     = "link"
	opSymlink  = "symlink"
	opMknod    = "mknod"
	opConnect  = "connect"
	opBind     = "bind"
	opIOURing  = "io_uring_setup"
	opMount    = "mount"
	opChroot   = "chroot"
)

// pathArg locates one path a call writes: the argument holding the path
// and the one holding its directory descriptor (-1: the cwd).
type pathArg struct{ dirfd, path int }

// call is one system call the observer is told about.
type call struct {
	nr    int
	op    string
	paths []pathArg
	// flags is the index of open flags (open, openat), checked in the
	// filter so that reads never reach vx; 0 for calls without.
	flags int
	how   bool // openat2: flags are in the struct open_how at args[2]
	net   bool // connect/bind: sockaddr at args[1], length args[2]
	// compat: a call of the architecture's compatibility mode (i386 on
	// amd64), keyed in a table by compatKey|nr.
	compat bool
	// handle: open_by_handle_at, whose file is named by a struct
	// file_handle at args[1] on the mount of the descriptor args[0].
	handle bool
	// socketcall: i386's socketcall, args[0] the call (notified for
	// SYS_BIND and SYS_CONNECT only), args[1] its arguments' address.
	socketcall bool
	// fastOpen: the index of sendto/sendmsg/sendmmsg's flags, notified
	// with MSG_FASTOPEN only (a TCP connection made without connect);
	// keyed in a table by fastOpenKey|nr.
	fastOpen int
	// refuse: the observer fails the call with this error, never lets it
	// go on.
	refuse unix.Errno
	// root: the call may give the caller another root directory (chroot,
	// setns into a mount namespace); it is no violation, but from then on
	// absolute names are judged beneath the caller's /proc/TID/root.
	root bool
}

// compatKey marks a compatibility-mode call's key in a table, above every
// call number.
const compatKey = 1 << 32

// fastOpenKey marks a fast-open send's key in a table: the filter alone
// picks those calls out of the sends, by a flag.
const fastOpenKey = 1 << 33

// key is c's key in a table.
func (c call) key() int {
	k := c.nr
	if c.compat {
		k |= compatKey
	}
	if c.fastOpen > 0 {
		k |= fastOpenKey
	}
	return k
}

// tableKey is the key of a notified call: its number, marked when it is
// of the compatibility mode (whose numbers differ).
func tableKey(n *seccompNotif) int {
	if compatArch != 0 && n.Arch == compatArch {
		return compatKey | int(n.Nr)
	}
	return int(n.Nr)
}

func cwd(idx ...int) []pathArg {
	out := make([]pathArg, len(idx))
	for i, p := range idx {
		out[i] = pathArg{dirfd: -1, path: p}
	}
	return out
}

func at(pairs ...int) []pathArg {
	var out []pathArg
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, pathArg{dirfd: pairs[i], path: pairs[i+1]})
	}
	return out
}

// fsCalls are the filesystem calls that can write, on every architecture.
var fsCalls = []call{
	{nr: unix.SYS_OPENAT, op: opWrite, paths: at(0, 1), flags: 2},
	{nr: unix.SYS_OPENAT2, op: opWrite, paths: at(0, 1), how: true},
	{nr: unix.SYS_MKDIRAT, op: opMkdir, paths: at(0, 1)},
	{nr: unix.SYS_UNLINKAT, op: opRemove, paths: at(0, 1)},
	{nr: unix.SYS_RENAMEAT, op: opRename, paths: at(0, 1, 2, 3)},
	{nr: unix.SYS_RENAMEAT2, op: opRename, paths: at(0, 1, 2, 3)},
	{nr: unix.SYS_LINKAT, op: opLink, paths: at(0, 1, 2, 3)},
	{nr: unix.SYS_SYMLINKAT, op: opSymlink, paths: at(1, 2)},
	{nr: unix.SYS_MKNODAT, op: opMknod, paths: at(0, 1)},
	{nr: unix.SYS_TRUNCATE, op: opTruncate, paths: cwd(0)},
	{nr: unix.SYS_OPEN_BY_HANDLE_AT, op: opWrite, flags: 2, handle: true},
	// Landlock refuses every change of mounts to a confined task: a
	// mount beneath the roots would make an outside directory writable
	// under inside names.
	{nr: unix.SYS_MOUNT, op: opMount, paths: cwd(1)},
	{nr: unix.SYS_UMOUNT2, op: opMount, paths: cwd(0)},
	{nr: unix.SYS_PIVOT_ROOT, op: opMount, paths: cwd(0)},
	{nr: unix.SYS_MOVE_MOUNT, op: opMount, paths: at(2, 3)},
	{nr: unix.SYS_CHROOT, op: opChroot, root: true},
	{nr: unix.SYS_SETNS, op: opChroot, root: true},
}

// ringCalls are refused (ENOSYS, as from a kernel without io_uring): the
// operations of an io_uring (IORING_OP_OPENAT, _RENAMEAT, _UNLINKAT,
// _MKDIRAT, _LINKAT, _SYMLINKAT) make no system call, so seccomp never
// sees them, and a task could write outside the roots unrecorded (report
// mode) or be denied by Landlock unrecorded (enforce). Programs fall back
// to system calls, as they do where io_uring is switched off.
var ringCalls = []call{
	{nr: unix.SYS_IO_URING_SETUP, op: opIOURing, refuse: unix.ENOSYS},
}

// netCalls are watched only when TCP is denied; bindCalls always, as
// binding a Unix socket to a path creates a file.
var netCalls = []call{
	{nr: unix.SYS_CONNECT, op: opConnect, net: true},
	{nr: unix.SYS_SENDTO, op: opConnect, fastOpen: 3},
	{nr: unix.SYS_SENDMSG, op: opConnect, fastOpen: 2},
	{nr: unix.SYS_SENDMMSG, op: opConnect, fastOpen: 3},
}

var bindCalls = []call{
	{nr: unix.SYS_BIND, op: opBind, net: true},
}

// writeFlags are the open flags that make an open a write.
const writeFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// calls is the table for a policy: connect only when TCP is denied.
func calls(network bool) map[int]call {
	m := map[int]call{}
	lists := [][]call{fsCalls, legacyCalls, compatCalls, bindCalls, compatBindCalls, ringCalls, compatRingCalls}
	if !network {
		lists = append(lists, netCalls, compatNetCalls)
	}
	for _, list := range lists {
		for _, c := range list {
			m[c.key()] = c
		}
	}
	return m
}

// socketcall's calls (linux/net.h) that the observer looks at.
const (
	socketcallBind    = 2
	socketcallConnect = 3
)

// BPF opcodes (linux/filter.h).
const (
	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// program is a tiny assembler: jumps name labels and are resolved forward.
type program struct {
	ins    []unix.SockFilter
	jumps  map[int][2]string // instruction → (jt, jf) labels
	labels map[string]int
}

func (p *program) emit(code uint16, k uint32, jt, jf string) {
	if jt != "" || jf != "" {
		p.jumps[len(p.ins)] = [2]string{jt, jf}
	}
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *program) label(name string) { p.labels[name] = len(p.ins) }

func (p *program) assemble() ([]unix.SockFilter, error) {
	for i, j := range p.jumps {
		for side, name := range j {
			if name == "" {
				continue
			}
			to, ok := p.labels[name]
			off := to - i - 1
			if !ok || off < 0 || off > 255 {
				return nil, fmt.Errorf("seccomp filter: jump from %d to %q (%d) out of range", i, name, to)
			}
			if side == 0 {
				p.ins[i].Jt = uint8(off)
			} else {
				p.ins[i].Jf = uint8(off)
			}
		}
	}
	return p.ins, nil
}

// filter builds the program: every call not in the table (and every call
// of an architecture that is neither the native one nor its compatibility
// mode, which this kernel does not run) is allowed without a word to vx;
// open and openat notify only with a write flag. A compatibility-mode
// call (i386's int 0x80 from a 64-bit task too) is looked up among its
// own numbers: Landlock judges it as any other. The call number is found by a binary
// search, not a row of compares: when it installs a filter the kernel runs
// it for every call number to find those it always allows (and then skips
// it for them), work that grows with the compares a number goes through.
func filter(table map[int]call) ([]unix.SockFilter, error) {
	p := &program{jumps: map[int][2]string{}, labels: map[string]int{}}
	var native, compat []call
	for _, c := range sortedCalls(table) {
		if c.compat {
			compat = append(compat, c)
		} else {
			native = append(native, c)
		}
	}
	// The search compares call numbers: sorted by them, not by key.
	for _, cs := range [][]call{native, compat} {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].nr < cs[j].nr })
	}
	p.emit(bpfLdAbsW, offArch, "", "")
	if len(compat) > 0 {
		p.emit(bpfJeqK, compatArch, "compat", "")
	}
	p.emit(bpfJeqK, auditArch, "", "allow")
	p.emit(bpfLdAbsW, offNr, "", "")
	p.search(native)
	if len(compat) > 0 {
		p.label("compat")
		p.emit(bpfLdAbsW, offNr, "", "")
		p.search(compat)
	}
	for _, c := range append(native, compat...) {
		if c.flags > 0 {
			p.label(fmt.Sprintf("flags%d", c.key()))
			p.emit(bpfLdAbsW, uint32(offArgs+8*c.flags), "", "")
			p.emit(bpfJsetK, writeFlags, "notify", "allow")
		}
		if c.fastOpen > 0 {
			p.label(fmt.Sprintf("tfo%d", c.key()))
			p.emit(bpfLdAbsW, uint32(offArgs+8*c.fastOpen), "", "")
			p.emit(bpfJsetK, unix.MSG_FASTOPEN, "notify", "allow")
		}
		if c.socketcall {
			p.label(fmt.Sprintf("sock%d", c.key()))
			p.emit(bpfLdAbsW, offArgs, "", "")
			p.emit(bpfJeqK, socketcallBind, "notify", "")
			p.emit(bpfJeqK, socketcallConnect, "notify", "allow")
		}
	}
	p.label("allow")
	p.emit(bpfRetK, unix.SECCOMP_RET_ALLOW, "", "")
	p.label("notify")
	p.emit(bpfRetK, unix.SECCOMP_RET_USER_NOTIF, "", "")
	return p.assemble()
}

// search emits the lookup of the call number (in the accumulator) among
// cs, sorted: halves split by one compare down to runs of a few, each run
// compared in turn and ending in an allow.
func (p *program) search(cs []call) {
	const run = 3
	if len(cs) <= run {
		for _, c := range cs {
			to := "notify"
			if c.flags > 0 {
				to = fmt.Sprintf("flags%d", c.key())
			}
			if c.socketcall {
				to = fmt.Sprintf("sock%d", c.key())
			}
			if c.fastOpen > 0 {
				to = fmt.Sprintf("tfo%d", c.key())
			}
			p.emit(bpfJeqK, uint32(c.nr), to, "")
		}
		p.emit(bpfRetK, unix.SECCOMP_RET_ALLOW, "", "")
		return
	}
	mid := len(cs) / 2
	upper := fmt.Sprintf("ge%d", cs[mid].key())
	p.emit(bpfJgeK, uint32(cs[mid].nr), upper, "")
	p.search(cs[:mid])
	p.label(upper)
	p.search(cs[mid:])
}

// observedProgram is the call table and assembled filter for one value of
// Policy.Network, built once per process: every session of that policy
// shares them (the kernel copies the program when it installs it).
type observedProgram struct {
	once  sync.Once
	table map[int]call
	ins   []unix.SockFilter
	err   error
}

var observedPrograms [2]observedProgram // indexed by network allowed

// observed returns the table and the filter program for a policy's network.
func observed(network bool) (map[int]call, *unix.SockFprog, error) {
	o := &observedPrograms[0]
	if network {
		o = &observedPrograms[1]
	}
	o.once.Do(func() {
		o.table = calls(network)
		o.ins, o.err = filter(o.table)
	})
	if o.err != nil {
		return nil, nil, o.err
	}
	return o.table, &unix.SockFprog{Len: uint16(len(o.ins)), Filter: &o.ins[0]}, nil
}
