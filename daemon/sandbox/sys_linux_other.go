//go:build linux && !amd64 && !arm64

package sandbox

// auditArch 0: the observer does not know this architecture's calls.
const auditArch = 0

var legacyCalls []call

// compatArch 0: the observer does not look at a compatibility mode's calls.
const compatArch = 0

var compatCalls, compatNetCalls, compatBindCalls, compatRingCalls []call
