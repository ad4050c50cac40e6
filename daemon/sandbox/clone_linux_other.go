//go:build linux && !amd64

package sandbox

// clone is the forked start's clone, which only amd64 has (vfork3 is
// written in its assembly): elsewhere a session starts from a confined
// thread.
func clone(a *forkArgs) (int, error) { return 0, errNoFork }

// canFork: this architecture has no forked start.
const canFork = false
