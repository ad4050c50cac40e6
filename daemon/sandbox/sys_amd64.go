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
