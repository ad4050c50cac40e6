//go:build unix

package watch

import "github.com/vzn/vx/internal/connlimit"

// openFileLimit is vxd's soft RLIMIT_NOFILE: how many descriptors it may
// hold. Go's runtime has already raised it to the hard limit when vxd
// started (syscall's init, go.dev/issue/46279; on macOS capped at
// kern.maxfilesperproc) and puts the original back for every process vxd
// starts. Calling Setrlimit here would end that restoring, and tasks would
// inherit the raised limit: so vxd reads the limit and never sets it.
func openFileLimit() uint64 {
	if n, ok := connlimit.OpenFileLimit(); ok {
		return n
	}
	return 256 // macOS's default soft limit, the smallest vxd meets
}
