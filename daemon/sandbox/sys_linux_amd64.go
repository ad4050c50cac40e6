package sandbox

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_X86_64

// legacyCalls are amd64's path calls that arm64 only has as *at forms.
var legacyCalls = []call{
	{nr: unix.SYS_CREAT, op: opCreate, paths: cwd(0)},
	{nr: unix.SYS_MKDIR, op: opMkdir, paths: cwd(0)},
	{nr: unix.SYS_RMDIR, op: opRemove, paths: cwd(0)},
	{nr: unix.SYS_UNLINK, op: opRemove, paths: cwd(0)},
	{nr: unix.SYS_RENAME, op: opRename, paths: cwd(0, 1)},
	{nr: unix.SYS_LINK, op: opLink, paths: cwd(0, 1)},
	{nr: unix.SYS_SYMLINK, op: opSymlink, paths: cwd(1)},
	{nr: unix.SYS_MKNOD, op: opMknod, paths: cwd(0)},
	{nr: unix.SYS_OPEN, op: opWrite, paths: cwd(0), flags: 1},
}

// compatArch is i386: a 64-bit task may make its calls too (int 0x80).
const compatArch = unix.AUDIT_ARCH_I386

// compatCalls are i386's calls that can write (asm/unistd_32.h numbers),
// their arguments where amd64's are; truncate64 is truncate with a 64-bit
// length.
var compatCalls = []call{
	{nr: 5, op: opWrite, paths: cwd(0), flags: 1, compat: true},      // open
	{nr: 8, op: opCreate, paths: cwd(0), compat: true},               // creat
	{nr: 9, op: opLink, paths: cwd(0, 1), compat: true},              // link
	{nr: 10, op: opRemove, paths: cwd(0), compat: true},              // unlink
	{nr: 14, op: opMknod, paths: cwd(0), compat: true},               // mknod
	{nr: 38, op: opRename, paths: cwd(0, 1), compat: true},           // rename
	{nr: 39, op: opMkdir, paths: cwd(0), compat: true},               // mkdir
	{nr: 40, op: opRemove, paths: cwd(0), compat: true},              // rmdir
	{nr: 83, op: opSymlink, paths: cwd(1), compat: true},             // symlink
	{nr: 92, op: opTruncate, paths: cwd(0), compat: true},            // truncate
	{nr: 193, op: opTruncate, paths: cwd(0), compat: true},           // truncate64
	{nr: 295, op: opWrite, paths: at(0, 1), flags: 2, compat: true},  // openat
	{nr: 296, op: opMkdir, paths: at(0, 1), compat: true},            // mkdirat
	{nr: 297, op: opMknod, paths: at(0, 1), compat: true},            // mknodat
	{nr: 301, op: opRemove, paths: at(0, 1), compat: true},           // unlinkat
	{nr: 302, op: opRename, paths: at(0, 1, 2, 3), compat: true},     // renameat
	{nr: 303, op: opLink, paths: at(0, 1, 2, 3), compat: true},       // linkat
	{nr: 304, op: opSymlink, paths: at(1, 2), compat: true},          // symlinkat
	{nr: 353, op: opRename, paths: at(0, 1, 2, 3), compat: true},     // renameat2
	{nr: 437, op: opWrite, paths: at(0, 1), how: true, compat: true}, // openat2
	{nr: 342, op: opWrite, flags: 2, handle: true, compat: true},     // open_by_handle_at
	{nr: 21, op: opMount, paths: cwd(1), compat: true},               // mount
	{nr: 22, op: opMount, paths: cwd(0), compat: true},               // umount
	{nr: 52, op: opMount, paths: cwd(0), compat: true},               // umount2
	{nr: 217, op: opMount, paths: cwd(0), compat: true},              // pivot_root
	{nr: 429, op: opMount, paths: at(2, 3), compat: true},            // move_mount
	{nr: 61, op: opChroot, root: true, compat: true},                 // chroot
	{nr: 346, op: opChroot, root: true, compat: true},                // setns
}

// compatNetCalls and compatBindCalls are i386's connect and bind, and
// socketcall, the older way to make them (stopped for those two only).
var compatNetCalls = []call{
	{nr: 362, op: opConnect, net: true, compat: true},
}

var compatBindCalls = []call{
	{nr: 361, op: opBind, net: true, compat: true},
	{nr: 102, op: opBind, socketcall: true, compat: true}, // socketcall
}

// compatRingCalls: i386's io_uring_setup, refused as amd64's is.
var compatRingCalls = []call{
	{nr: 425, op: opIOURing, refuse: unix.ENOSYS, compat: true},
}
