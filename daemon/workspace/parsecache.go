package workspace

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// parseCache remembers decoded manifests by path against their size,
// mtime and inode, so the daemon's reload after one edit re-reads only the
// file that changed. Decoded values are shared and must not be modified.
var parseCache sync.Map // path → cachedParse

type fileStamp struct {
	size  int64
	mtime int64
	ino   uint64
}

type cachedParse struct {
	stamp fileStamp
	value any
}

func stampOf(path string) (fileStamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	s := fileStamp{size: st.Size(), mtime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = sys.Ino
	}
	return s, nil
}

// readCached returns the decoded file at path, decoding it with decode
// only when it changed since it was last decoded.
func readCached[T any](path string, decode func(b []byte) (*T, error)) (*T, error) {
	stamp, err := stampOf(path)
	if err != nil {
		return nil, err
	}
	if c, ok := parseCache.Load(path); ok {
		if cp := c.(cachedParse); cp.stamp == stamp {
			return cp.value.(*T), nil
		}
	}
	b, err := os.ReadFile(path)
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
