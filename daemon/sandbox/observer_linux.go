package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// seccompNotif and seccompResp are struct seccomp_notif and
// seccomp_notif_resp (linux/seccomp.h).
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

const (
	ioctlNotifIDValid     = 0x40082102 // SECCOMP_IOCTL_NOTIF_ID_VALID
	userNotifFlagContinue = 1          // SECCOMP_USER_NOTIF_FLAG_CONTINUE
	pathMax               = 4096
	firstRead             = 256 // bytes of a path readString asks for first
)

// answer receives one notification, records it when it is a violation and
// lets the call continue (Landlock, when applied, then decides).
func (s *Session) answer(notify int) {
	var n seccompNotif
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(notify), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); e != 0 {
		return // ENOENT: the caller went away before we read it
	}
	resp := seccompResp{ID: n.ID, Flags: userNotifFlagContinue}
	c, ok := s.table[tableKey(&n)]
	if !ok {
		c, ok = s.table[fastOpenKey|tableKey(&n)]
	}
	if ok {
		if c.compat {
			for i := range n.Args { // the call takes only their low 32 bits
				n.Args[i] = uint64(uint32(n.Args[i]))
			}
		}
		vs := s.inspect(c, &n)
		// The memory read above is only the caller's if it is still waiting.
		if len(vs) > 0 && valid(notify, n.ID) && !self(int(n.Pid)) {
			for _, v := range vs {
				s.record(v)
			}
		}
		if c.fastOpen > 0 && (len(vs) > 0 && vs[0].Denied || s.refusesFastOpen(&n)) {
			// Landlock does not see a fast-open connect: vx refuses it
			// as Landlock refuses connect.
			resp = seccompResp{ID: n.ID, Error: -int32(unix.EACCES)}
		}
	}
	if c.refuse != 0 {
		resp = seccompResp{ID: n.ID, Error: -int32(c.refuse)}
	}
	unix.Syscall(unix.SYS_IOCTL, uintptr(notify), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
}

func valid(notify int, id uint64) bool {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(notify), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id)))
	return e == 0
}

// inspect turns a notification into the violations it is: the paths it
// writes outside the policy, or a TCP address.
func (s *Session) inspect(c call, n *seccompNotif) []wire.SandboxViolation {
	switch {
	case c.net:
		return s.inspectNet(c, n)
	case c.handle:
		return s.inspectHandle(n)
	case c.socketcall:
		return s.inspectSocketcall(n)
	case c.fastOpen > 0:
		return s.inspectFastOpen(c, n)
	}
	if c.root || c.op == opMount {
		// Any task process may have another root from now on.
		rootMoved.Store(true)
	}
	switch {
	case c.root:
		return nil
	case c.op == opMount:
		return s.inspectMount(c, n)
	}
	flags, resolveFlags, writes := callFlags(c, n)
	if !writes {
		return nil
	}
	return s.inspectPaths(c, n, flags, resolveFlags)
}

// callFlags reads an open's flags, and openat2's resolve flags; writes is
// false for an open that writes nothing.
func callFlags(c call, n *seccompNotif) (flags, resolveFlags uint64, writes bool) {
	switch {
	case c.how:
		b, err := readMem(int(n.Pid), uintptr(n.Args[2]), openHowSize)
		if err != nil || n.Args[3] < openHowSize {
			return 0, 0, false // the kernel cannot read it either (EFAULT, EINVAL)
		}
		flags, resolveFlags = binary.NativeEndian.Uint64(b), binary.NativeEndian.Uint64(b[16:])
		if flags&writeFlags == 0 {
			return 0, 0, false
		}
	case c.flags > 0:
		flags = n.Args[c.flags]
	default:
		return 0, 0, true
	}
	// O_PATH ignores O_CREAT, O_TRUNC and the access mode (openat2 refuses
	// them with it: EINVAL): nothing is written.
	return flags, resolveFlags, flags&unix.O_PATH == 0
}

// inspectPaths judges each path a call writes.
func (s *Session) inspectPaths(c call, n *seccompNotif, flags, resolveFlags uint64) []wire.SandboxViolation {
	tid, op := int(n.Pid), c.op
	follow := follows(op, flags)
	var out []wire.SandboxViolation
	var source abs // a rename's source, resolved only if a violation needs it
	var linked [2]abs
	linkedRaw := ""
	for i, pa := range c.paths {
		raw, err := readString(tid, uintptr(n.Args[pa.path]))
		if err != nil {
			continue
		}
		dirfd := int32(unix.AT_FDCWD)
		if pa.dirfd >= 0 {
			dirfd = int32(n.Args[pa.dirfd])
		}
		var a abs
		var ok bool
		if resolveFlags&unix.RESOLVE_IN_ROOT != 0 {
			a, ok = inRoot(tid, dirfd, raw, resolveFlags, follow)
		} else {
			a, ok = absolute(tid, dirfd, raw)
		}
		if !ok {
			continue
		}
		if op == opRename && i == 0 {
			source = a
		}
		if op == opLink && len(c.paths) == 2 {
			// The file linked is judged after its new name (linkedIn).
			linked[i] = a
			if i == 0 {
				linkedRaw = raw
				continue
			}
		}
		if v, ok := s.judge(op, flags, a, raw, follow, tid); ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 && linked[0].path != "" && linked[1].path != "" {
		// linkat (an at form: its flags follow the paths) may follow.
		follow := c.paths[0].dirfd >= 0 && n.Args[4]&unix.AT_SYMLINK_FOLLOW != 0
		if v, ok := s.linkedIn(linked[0], linkedRaw, follow, linked[1], tid); ok {
			out = append(out, v)
		}
	}
	if len(out) > 0 && source.path != "" {
		// A rename of nothing fails (ENOENT) and moves nothing, unless
		// the source is beneath the roots, where another process of the
		// task may create it, unrecorded, before this call goes on.
		if src := source.resolve(false); missing(src) && !s.policy.Allows(src) {
			return nil
		}
	}
	return out
}

// judge is the violation a call makes at one path it writes, if any.
func (s *Session) judge(op string, flags uint64, a abs, raw string, follow bool, tid int) (wire.SandboxViolation, bool) {
	entry := changesEntry(op)
	if s.policy.within(a, raw, follow) && !(entry && s.policy.fileRootOnly(a.path)) {
		return wire.SandboxViolation{}, false
	}
	path := a.resolve(follow)
	if s.policy.Allows(path) && !(entry && s.policy.fileRootOnly(path)) {
		return wire.SandboxViolation{}, false
	}
	vop, changes := outcome(op, flags, path)
	if !changes {
		return wire.SandboxViolation{}, false
	}
	denied := s.policy.Landlock && (op != opTruncate || s.policy.ABI >= 3)
	return wire.SandboxViolation{Op: vop, Path: path, Process: comm(tid), Pid: tid, Denied: denied}, true
}

// changesEntry reports that op changes a name in its directory (creates,
// removes or replaces it), which a file root does not allow: its
// directory is no root.
func changesEntry(op string) bool {
	switch op {
	case opMkdir, opRemove, opRename, opLink, opSymlink, opMknod:
		return true
	}
	return false
}

// fileRootOnly reports that path is a file root (WriteFiles) and lies
// beneath no directory root.
func (p *Policy) fileRootOnly(path string) bool {
	for _, d := range p.WriteDirs {
		if beneath(path, d) {
			return false
		}
	}
	for _, f := range p.WriteFiles {
		if path == f {
			return true
		}
	}
	return false
}

// follows reports whether a call follows a symlink at its path's last
// component as the kernel does: truncate, creat, and an open without
// O_NOFOLLOW (ELOOP on a symlink) that is not exclusive (O_CREAT|O_EXCL
// fails with EEXIST on any name that exists, a symlink too).
func follows(op string, flags uint64) bool {
	switch op {
	case opTruncate, opCreate:
		return true
	case opWrite:
		excl := uint64(unix.O_CREAT | unix.O_EXCL)
		return flags&unix.O_NOFOLLOW == 0 && flags&excl != excl
	}
	return false
}

// linkedIn is the violation of a hard link at a new name beneath the
// roots (to) to a file outside them (from): it makes that file writable
// under an inside name, and Landlock refuses it (EXDEV). A directory is
// never linked, and a link onto an existing name fails (EEXIST).
func (s *Session) linkedIn(from abs, raw string, follow bool, to abs, tid int) (wire.SandboxViolation, bool) {
	if s.policy.within(from, raw, follow) || !missing(to.resolve(false)) {
		return wire.SandboxViolation{}, false
	}
	path := from.resolve(follow)
	if fi, err := os.Lstat(path); err != nil || fi.IsDir() || s.policy.Allows(path) {
		return wire.SandboxViolation{}, false
	}
	return wire.SandboxViolation{Op: opLink, Path: path, Process: comm(tid), Pid: tid, Denied: s.policy.Landlock}, true
}

// outcome is what a call outside the policy does to path, as the kernel
// decides before Landlock is asked, and whether it changes anything:
// creating what exists fails (EEXIST), and so does removing, truncating
// or opening without O_CREAT what does not (ENOENT). Such a call is no
// violation: nothing is written, and Landlock denies nothing (in report
// mode, counting it would also keep the task out of the cache for a
// `mkdir -p` of a directory that is there). The caller is stopped, so
// only another process changing path meanwhile can make this wrong.
func outcome(op string, flags uint64, path string) (string, bool) {
	_, err := os.Lstat(path)
	exists, gone := err == nil, errors.Is(err, fs.ErrNotExist)
	switch op {
	case opMkdir, opMknod, opSymlink, opLink:
		return op, !exists
	case opRemove, opTruncate:
		return op, !gone
	case opCreate: // creat(2): O_CREAT|O_WRONLY|O_TRUNC
		if exists {
			return opWrite, true
		}
		return opCreate, true
	case opWrite:
		switch {
		case flags&unix.O_CREAT == 0:
			return op, !gone
		case exists:
			return op, flags&unix.O_EXCL == 0
		default:
			return opCreate, true
		}
	}
	return op, true
}

// missing reports that nothing is at path.
func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// inspectNet reads connect/bind's address: an IPv4/IPv6 TCP one counts
// when the network is denied, a Unix socket's path when bind creates it.
func (s *Session) inspectNet(c call, n *seccompNotif) []wire.SandboxViolation {
	tid := int(n.Pid)
	size := int(n.Args[2])
	if size < 2 || size > 128 {
		return nil
	}
	b, err := readMem(tid, uintptr(n.Args[1]), size)
	if err != nil {
		return nil
	}
	var ap netip.AddrPort
	switch fam := binary.NativeEndian.Uint16(b); {
	case fam == unix.AF_UNIX:
		if c.op == opBind {
			return s.unixBind(tid, b[2:])
		}
		return nil
	case s.policy.Network:
		return nil // bind is watched for Unix sockets alone
	case fam == unix.AF_INET && len(b) >= 8:
		ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:4]))
	case fam == unix.AF_INET6 && len(b) >= 24:
		ap = netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])), binary.BigEndian.Uint16(b[2:4]))
	default:
		return nil
	}
	proto := socketProtocol(tid, int(n.Args[0]))
	if proto != 0 && proto != unix.IPPROTO_TCP && proto != unix.IPPROTO_MPTCP {
		return nil // UDP and the rest: Landlock's TCP rules do not cover them
	}
	// Landlock denies classic TCP only, and only from ABI 4.
	denied := s.policy.Landlock && s.policy.ABI >= 4 && proto != unix.IPPROTO_MPTCP
	return []wire.SandboxViolation{{Op: c.op, Address: ap.String(), Process: comm(tid), Pid: tid, Denied: denied}}
}

// inspectSocketcall reads i386's socketcall(SYS_BIND or SYS_CONNECT,
// args): three 32-bit words, the descriptor, the address and its length,
// judged as bind's or connect's.
func (s *Session) inspectSocketcall(n *seccompNotif) []wire.SandboxViolation {
	op := opBind
	switch n.Args[0] {
	case socketcallBind:
	case socketcallConnect:
		op = opConnect
	default:
		return nil
	}
	b, err := readMem(int(n.Pid), uintptr(n.Args[1]), 12)
	if err != nil {
		return nil
	}
	sub := *n
	for i := range 3 {
		sub.Args[i] = uint64(binary.NativeEndian.Uint32(b[4*i:]))
	}
	return s.inspectNet(call{op: op, net: true}, &sub)
}

// refusesFastOpen reports that a fast-open send is on a TCP socket where
// Landlock would deny its connect, whatever address vx read: another
// thread of the task may change the address before the call goes on,
// and only vx's refusal stops it.
func (s *Session) refusesFastOpen(n *seccompNotif) bool {
	return s.policy.Landlock && s.policy.ABI >= 4 && socketProtocol(int(n.Pid), int(n.Args[0])) == unix.IPPROTO_TCP
}

// inspectFastOpen reads the address a fast-open send connects to:
// sendto's at args[4] (length args[5]); sendmsg's, and sendmmsg's first
// message's, msg_name and msg_namelen at the head of the msghdr at
// args[1]. It is judged as connect's.
func (s *Session) inspectFastOpen(c call, n *seccompNotif) []wire.SandboxViolation {
	sub := *n
	if c.nr == unix.SYS_SENDTO {
		sub.Args[1], sub.Args[2] = n.Args[4], n.Args[5]
	} else {
		b, err := readMem(int(n.Pid), uintptr(n.Args[1]), 12)
		if err != nil {
			return nil
		}
		sub.Args[1], sub.Args[2] = binary.NativeEndian.Uint64(b), uint64(binary.NativeEndian.Uint32(b[8:]))
	}
	if sub.Args[1] == 0 {
		return nil // no address: a send on a connected socket
	}
	return s.inspectNet(call{op: opConnect, net: true}, &sub)
}

// unixBind is the violation of binding a Unix socket at sunPath (the
// bytes of sun_path the call gives): bind creates the socket file there
// as mknod does, relative to the cwd and never through a symlink at its
// last component (EADDRINUSE on any name that exists). A name in the
// abstract namespace (a leading NUL) or none (autobind) creates nothing.
func (s *Session) unixBind(tid int, sunPath []byte) []wire.SandboxViolation {
	if i := bytes.IndexByte(sunPath, 0); i >= 0 {
		sunPath = sunPath[:i]
	}
	raw := string(sunPath)
	a, ok := absolute(tid, unix.AT_FDCWD, raw)
	if !ok || s.policy.within(a, raw, false) {
		return nil
	}
	path := a.resolve(false)
	if s.policy.Allows(path) || !missing(path) {
		return nil
	}
	return []wire.SandboxViolation{{Op: opBind, Path: path, Process: comm(tid), Pid: tid, Denied: s.policy.Landlock}}
}

// socketProtocol asks the caller's socket its protocol through a duplicate
// taken with pidfd_getfd; 0 when it cannot be asked.
func socketProtocol(tid, fd int) int {
	pidfd, err := unix.PidfdOpen(tgid(tid), 0)
	if err != nil {
		return 0
	}
	defer unix.Close(pidfd)
	dup, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(dup)
	p, err := unix.GetsockoptInt(dup, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if err != nil {
		return 0
	}
	return p
}

func tgid(tid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return tid
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return tid
}

func comm(tid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", tid))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// readMem reads n bytes of the caller's memory.
func readMem(tid int, addr uintptr, n int) ([]byte, error) {
	buf := make([]byte, n)
	got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &buf[0], Len: uint64(n)}}, []unix.RemoteIovec{{Base: addr, Len: n}}, 0)
	if err != nil {
		return nil, err
	}
	if got != n {
		return nil, fmt.Errorf("short read of %d/%d bytes", got, n)
	}
	return buf, nil
}

// readString reads a NUL-terminated path, never across a page boundary in
// one read so that a string ending just before an unmapped page still
// reads. The first read is short: most paths are.
func readString(tid int, addr uintptr) (string, error) {
	var out []byte
	for first := true; len(out) < pathMax; first = false {
		chunk := 4096 - int(addr%4096)
		if first && chunk > firstRead {
			chunk = firstRead
		}
		b, err := readMem(tid, addr, chunk)
		if err != nil {
			return "", err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return string(append(out, b[:i]...)), nil
		}
		out = append(out, b...)
		addr += uintptr(chunk)
	}
	return "", errors.New("path longer than PATH_MAX")
}

// abs is a path a call names, made absolute but not yet resolved.
type abs struct {
	path  string // absolute and lexically clean
	canon string // the kernel's name of its base directory, "" for none
	final bool   // path is a descriptor's target, the kernel's own name
	tid   int    // the caller, whose /proc/self a symlink may name
}

// absolute joins raw to the caller's cwd or dirfd, as the kernel names it.
func absolute(tid int, dirfd int32, raw string) (abs, bool) {
	if raw == "" {
		return abs{}, false
	}
	if fd, ok := fdAlias(raw); ok {
		target, err := procLink(tid, "fd/"+strconv.Itoa(fd))
		if err != nil || !filepath.IsAbs(target) {
			return abs{}, false
		}
		return abs{path: target, final: true}, true
	}
	p, canon := raw, ""
	if r := callerRoot(tid); r != "" && filepath.IsAbs(p) {
		p = r + p // chrooted: an absolute name is beneath its root
	}
	if !filepath.IsAbs(p) {
		base := "cwd"
		if dirfd != unix.AT_FDCWD {
			base = "fd/" + strconv.Itoa(int(dirfd))
		}
		dir, err := procLink(tid, base)
		if err != nil || !filepath.IsAbs(dir) {
			return abs{}, false
		}
		p, canon = dir+"/"+p, filepath.Clean(dir)
	}
	p, canon = climb(p, canon, tid)
	return abs{path: procSelfAs(p, tid), canon: canon, tid: tid}, true
}

// climb cleans the absolute p, taking ".." after the symlinks before it,
// as the kernel does: cleaning "l/../x" to "x" would put it beside the
// link, not beside the link's target. A head that does not resolve fails
// the call in the kernel too. canon is p's resolved base, kept or replaced.
func climb(p, canon string, tid int) (string, string) {
	if head, tail, ok := cutLastDotDot(p); ok {
		if r, err := evalAs(head, tid); err == nil {
			p, canon = r+"/"+tail, r
		}
	}
	return filepath.Clean(p), canon
}

// rootMoved is set once any task of this process has made a call that may
// give it another root directory (chroot, setns, a change of mounts; all
// watched, and seen before they take effect). Until then every task has
// vx's root, and callerRoot need not ask /proc for it on every call.
var rootMoved atomic.Bool

// callerRoot is the caller's root directory (chroot(2)) in vx's view, ""
// when it is vx's own "/".
func callerRoot(tid int) string {
	if tid <= 0 || !rootMoved.Load() {
		return ""
	}
	r, err := procLink(tid, "root")
	if err != nil || r == "/" || !filepath.IsAbs(r) {
		return ""
	}
	return filepath.Clean(r)
}

// procSelfAs names the caller's /proc/self (or thread-self) in p as the
// caller's own /proc/TID, which vx can read.
func procSelfAs(p string, tid int) string {
	for _, self := range []string{"/proc/self", "/proc/thread-self"} {
		if rest, ok := strings.CutPrefix(p, self); ok && (rest == "" || rest[0] == '/') {
			return fmt.Sprintf("/proc/%d%s", tid, rest)
		}
	}
	return p
}

// cutLastDotDot splits p after its last ".." component: head ends with
// it and tail, what follows, climbs no more.
func cutLastDotDot(p string) (head, tail string, ok bool) {
	names := strings.Split(p, "/")
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == ".." {
			return strings.Join(names[:i+1], "/"), strings.Join(names[i+1:], "/"), true
		}
	}
	return "", "", false
}

// resolve is where the call writes, every symlink it follows resolved.
func (a abs) resolve(follow bool) string {
	if a.final {
		return a.path
	}
	p, canon := a.path, a.canon
	if follow {
		r, missingLeaf, err := walkFrom(canon, p, a.tid)
		if err == nil || missingLeaf {
			// A file about to be created: its directory is resolved.
			return r
		}
		if errors.Is(err, fs.ErrNotExist) {
			return danglingTarget(canon, p, a.tid)
		}
	}
	if r, err := evalFrom(canon, filepath.Dir(p), a.tid); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

// danglingTarget is where a call following p's last component writes
// when p names no file: the target of the dangling symlink (or chain of
// them) p is, which open with O_CREAT creates; p itself when it is no
// symlink. Directories are resolved.
func danglingTarget(canon, p string, tid int) string {
	for hops := 0; hops < 40; hops++ { // the kernel's limit (ELOOP)
		dir, err := evalFrom(canon, filepath.Dir(p), tid)
		if err != nil {
			return p
		}
		leaf := filepath.Join(dir, filepath.Base(p))
		target, err := os.Readlink(leaf)
		if err != nil {
			return leaf
		}
		if !filepath.IsAbs(target) {
			target = dir + "/" + target
		} else if r := callerRoot(tid); r != "" {
			target = r + target
		}
		p, canon = climb(procSelfAs(target, tid), "", tid)
	}
	return p
}

// procDir is /proc, opened once: a caller's links are read relative to it.
var procDir = sync.OnceValues(func() (int, error) {
	return unix.Open("/proc", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
})

// procLink reads the link /proc/TID/name.
func procLink(tid int, name string) (string, error) {
	rel := strconv.Itoa(tid) + "/" + name
	fd, err := procDir()
	if err != nil {
		return os.Readlink("/proc/" + rel)
	}
	target, err := readlinkAt(fd, rel)
	if err != nil {
		return "", &os.PathError{Op: "readlink", Path: "/proc/" + rel, Err: err}
	}
	return target, nil
}

// evalFrom is filepath.EvalSymlinks(p) for a p beneath canon, a directory
// path the kernel gave (a descriptor's or cwd's link: no symlink in it),
// checking only the components below canon. Any symlink, or a p not beneath
// an existing canon, takes the general way. Symlinks are read as the caller
// tid sees them (evalAs; 0: vx's own view).
func evalFrom(canon, p string, tid int) (string, error) {
	r, missingLeaf, err := walkFrom(canon, p, tid)
	if missingLeaf {
		return "", err
	}
	return r, err
}

// walkFrom is evalFrom, and when only p's last component is missing (every
// one before it exists and none is a symlink) it says so with missingLeaf
// and returns p, whose directory is then resolved: one walk answers both
// what p is and, for a file about to be created, where it would be.
func walkFrom(canon, p string, tid int) (_ string, missingLeaf bool, _ error) {
	rest, ok := strings.CutPrefix(p, canon)
	if canon == "" || canon == "/" || !ok || (rest != "" && rest[0] != '/') {
		r, err := evalAs(p, tid)
		return r, false, err
	}
	if fi, err := os.Lstat(canon); err != nil || !fi.IsDir() {
		r, err := evalAs(p, tid)
		return r, false, err
	}
	cur := canon
	names := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	for i, name := range names {
		if name == "" {
			continue
		}
		cur += "/" + name
		fi, err := os.Lstat(cur)
		if err != nil {
			if i == len(names)-1 && errors.Is(err, fs.ErrNotExist) {
				return cur, true, err
			}
			return "", false, err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			r, err := evalAs(p, tid)
			return r, false, err
		}
	}
	return cur, false, nil
}

// evalAs is filepath.EvalSymlinks of the absolute p (in vx's view) as
// the caller tid sees it: /proc/self and /proc/thread-self, met in p or
// in a symlink's target (/dev/fd, /dev/stdout and a task's own links to
// them), are the caller's /proc/TID, not vx's; a symlink's absolute
// target starts at the caller's root (chroot), and ".." of that root is
// the root. tid 0: vx's own view.
func evalAs(p string, tid int) (string, error) {
	if tid <= 0 || !filepath.IsAbs(p) {
		return filepath.EvalSymlinks(p)
	}
	root := callerRoot(tid)
	if root == "" {
		root = "/"
	}
	resolved, todo := "/", p
	for links := 0; ; {
		todo = strings.TrimLeft(todo, "/")
		if todo == "" {
			return resolved, nil
		}
		var name string
		name, todo, _ = strings.Cut(todo, "/")
		switch name {
		case ".":
			continue
		case "..":
			if resolved != root { // ".." of the caller's root is that root
				resolved = filepath.Dir(resolved)
			}
			continue
		}
		next := procSelfAs(filepath.Join(resolved, name), tid)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > 40 { // the kernel's limit
			return "", &os.PathError{Op: "lstat", Path: next, Err: unix.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = root
		}
		todo = target + "/" + todo
	}
}

// fdAlias recognises names of an open descriptor: /dev/stdout, /dev/fd/N,
// /proc/self/fd/N.
func fdAlias(p string) (int, bool) {
	switch p {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, pre := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
				return n, true
			}
		}
	}
	return 0, false
}

// within reports, without resolving a, that a call writing it stays inside
// the policy: a names a root or a file of the policy, or lies beneath a
// root through components none of which is a symlink the call follows (a
// missing one: the call fails or creates inside). The roots are
// symlink-free and a's base is the kernel's name, so what is lexically
// inside is inside unless raw climbs with ".." or a component below the
// root is a symlink; those take resolve. A root nested beneath another
// is walked from that one: the task may have replaced it. false says only
// "resolve it".
func (p *Policy) within(a abs, raw string, follow bool) bool {
	if strings.Contains(raw, "..") {
		return false
	}
	for _, f := range p.WriteFiles {
		if a.path == f {
			return true
		}
	}
	for _, d := range p.WriteDirs {
		if nested(d, p.WriteDirs) {
			continue // the task may replace it: judged from the root above
		}
		if a.path == d {
			return true
		}
		if d == "/" || !strings.HasPrefix(a.path, d+"/") {
			continue
		}
		if noSymlinkBelow(d, a.path[len(d)+1:], follow) {
			return true
		}
	}
	return false
}

// nested reports that the root d lies beneath another of the roots (but
// "/", which within never walks from), where the task may move it away
// and put a symlink in its place.
func nested(d string, roots []string) bool {
	for _, o := range roots {
		if o != "/" && strings.HasPrefix(d, o+"/") {
			return true
		}
	}
	return false
}

// noSymlinkBelow walks rest's components beneath dir (the last only when
// the call follows it) and reports that none is a symlink.
func noSymlinkBelow(dir, rest string, follow bool) bool {
	cur := dir
	for rest != "" {
		name, more, _ := strings.Cut(rest, "/")
		rest = more
		if rest == "" && !follow {
			return true
		}
		cur += "/" + name
		var st unix.Stat_t
		switch err := unix.Lstat(cur, &st); {
		case err == unix.ENOENT || err == unix.ENOTDIR:
			return true
		case err != nil:
			return false
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return false
		}
	}
	return true
}
