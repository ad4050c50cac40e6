//go:build !amd64 && !arm64

package sandbox

// auditArch 0: the observer does not know this architecture's calls.
const auditArch = 0

var legacyCalls []call
