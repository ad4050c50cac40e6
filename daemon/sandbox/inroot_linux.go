package sandbox

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openHowSize is the size of struct open_how's first version: flags,
// mode, resolve. openat2 refuses a smaller one (EINVAL).
const openHowSize = 24

// resolveCached is RESOLVE_CACHED (linux/openat2.h): it makes openat2
// fail with EAGAIN unless the lookup is cached, so vx leaves it out.
const resolveCached = 0x20

// inRoot is where openat2 with RESOLVE_IN_ROOT writes raw: beneath the
// caller's directory descriptor, which the kernel takes as "/" for an
// absolute name, for "..", and for every symlink's target. The kernel
// itself resolves it, on vx's own descriptor of that directory and with
// the call's resolve flags: raw's directory, and the file when the call
// follows it (a dangling symlink's target, which O_CREAT creates, in its
// turn). ok is false when the directory does not resolve: the call fails
// as well.
func inRoot(tid int, dirfd int32, raw string, resolve uint64, follow bool) (abs, bool) {
	base, err := callerDir(tid, dirfd)
	if err != nil {
		return abs{}, false
	}
	defer unix.Close(base)
	how := func(flags uint64) *unix.OpenHow {
		return &unix.OpenHow{Flags: flags | unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve &^ resolveCached}
	}
	for hops := 0; hops < 40; hops++ { // the kernel's limit (ELOOP)
		if follow {
			if fd, err := unix.Openat2(base, raw, how(0)); err == nil {
				p, err := fdPath(fd)
				unix.Close(fd)
				return abs{path: p, final: true}, err == nil
			}
		}
		dir, leaf := filepath.Split(raw)
		if dir == "" {
			dir = "."
		}
		d, err := unix.Openat2(base, dir, how(unix.O_DIRECTORY))
		if err != nil {
			return abs{}, false
		}
		p, err := fdPath(d)
		target, lerr := readlinkAt(d, leaf)
		unix.Close(d)
		if err != nil {
			return abs{}, false
		}
		if !follow || lerr != nil {
			return abs{path: filepath.Join(p, leaf), final: true}, true
		}
		if !filepath.IsAbs(target) {
			target = dir + "/" + target
		}
		raw = target // absolute: beneath base still
	}
	return abs{}, false
}

// callerDir opens (O_PATH) the caller's directory descriptor, or its cwd.
func callerDir(tid int, dirfd int32) (int, error) {
	return openCallers(tid, dirfd, unix.O_PATH|unix.O_DIRECTORY)
}

// callerFile is a duplicate of the caller's descriptor fd (pidfd_getfd:
// reopening it could block or act on a device), or its cwd opened for
// reading: open_by_handle_at refuses an O_PATH mount descriptor (EBADF).
func callerFile(tid int, fd int32) (int, error) {
	if fd == unix.AT_FDCWD {
		return openCallers(tid, fd, unix.O_RDONLY|unix.O_DIRECTORY)
	}
	pidfd, err := unix.PidfdOpen(tgid(tid), 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pidfd)
	return unix.PidfdGetfd(pidfd, int(fd), 0)
}

func openCallers(tid int, fd int32, flags int) (int, error) {
	name := "cwd"
	if fd != unix.AT_FDCWD {
		name = "fd/" + strconv.Itoa(int(fd))
	}
	proc, err := procDir()
	if err != nil {
		return -1, err
	}
	return unix.Openat(proc, strconv.Itoa(tid)+"/"+name, flags|unix.O_CLOEXEC, 0)
}

// fdPath is the kernel's name of vx's descriptor fd.
func fdPath(fd int) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
}

// readlinkAt reads the symlink name in the directory dir.
func readlinkAt(dir int, name string) (string, error) {
	if name == "" {
		return "", unix.EINVAL
	}
	var buf [pathMax]byte
	for {
		n, err := unix.Readlinkat(dir, name, buf[:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return "", err
		case n >= len(buf):
			return "", unix.ENAMETOOLONG
		}
		return string(buf[:n]), nil
	}
}
