package workspace

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// parseCache remembers decoded manifests by path against their size,
// mtime and inode, so the daemon's reload after one edit re-reads only the
// file that changed. Decoded values are shared and must not be modified.
var parseCache sync.Map // path → cachedParse

type fileStamp struct {
	size  int64
	mtime int64
	ino   uint64
	ctime int64 // an edit that puts the mtime back still moves it
}

type cachedParse struct {
	stamp fileStamp
	value any
}

func stampOf(path string) (fileStamp, error) {
	var st hashing.Stat
	if err := hashing.StatPath(path, &st); err != nil {
		return fileStamp{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return fileStamp{size: st.Size, mtime: st.Mtime, ino: st.Ino, ctime: st.Ctime}, nil
}

// readCached returns the decoded file at path, decoding it with decode
// only when it changed since it was last decoded.
func readCached[T any](path string, decode func(b []byte) (*T, error)) (*T, error) {
	return readCachedAt(path, nil, decode)
}

// readCachedAt is readCached with the file's stamp when the caller just
// took it (nil: stat it here).
func readCachedAt[T any](path string, known *fileStamp, decode func(b []byte) (*T, error)) (*T, error) {
	var stamp fileStamp
	if known != nil {
		stamp = *known
	} else {
		var err error
		if stamp, err = stampOf(path); err != nil {
			return nil, err
		}
	}
	if c, ok := parseCache.Load(path); ok {
		if cp := c.(cachedParse); cp.stamp == stamp {
			return cp.value.(*T), nil
		}
	}
	b, err := readSmallFile(path, stamp.size)
	if err != nil {
		return nil, err
	}
	v, err := decode(b)
	if err != nil {
		return nil, err
	}
	// A file written within the mtime's resolution may change again
	// without its stamp changing: do not remember it yet.
	if time.Since(time.Unix(0, stamp.mtime)) > 2*time.Second {
		parseCache.Store(path, cachedParse{stamp: stamp, value: v})
	}
	return v, nil
}

// maxManifestSize bounds a configuration file or manifest read.
const maxManifestSize = 64 << 20

// readSmallFile reads the whole file at path on a bare descriptor (open,
// read until end of file, close), with a buffer sized from the stat just
// taken. os.ReadFile costs five more system calls a file (an fstat and
// the runtime poller's registration), which a load of 1,000 manifests
// pays 1,000 times.
func readSmallFile(path string, size int64) ([]byte, error) {
	if size < 0 || size > maxManifestSize {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes is larger than the %d a manifest may have", size, maxManifestSize)}
	}
	var fd rawFD
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	// One byte more than the stat said: a file that grew since is still
	// read to its end.
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= maxManifestSize {
				return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than the %d bytes a manifest may have", maxManifestSize)}
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
