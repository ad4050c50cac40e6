package sandbox

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

// legacyCalls: arm64 has only the *at forms.
var legacyCalls []call

// compatArch 0: the observer does not look at a compatibility mode's calls.
const compatArch = 0

var compatCalls, compatNetCalls, compatBindCalls, compatRingCalls []call
