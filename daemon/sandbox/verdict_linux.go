package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Detect says what the sandbox runtime can do on this host: the Landlock
// ABI and what it lets vx deny, and whether the observer works.
func Detect() Verdict {
	if os.Getenv(forceUnavailableEnv) == "1" {
		return unavailable("this host (" + forceUnavailableEnv + "=1 is set, for testing)")
	}
	v := Verdict{Enforced: []string{}}
	var reasons []string
	switch abi, err := ll.LandlockGetABIVersion(); {
	case os.Getenv(forceNoLandlockEnv) == "1":
		reasons = append(reasons, forceNoLandlockEnv+"=1 is set (for testing): Landlock is treated as absent")
	case errors.Is(err, unix.ENOSYS):
		reasons = append(reasons, "this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK, or older than Linux 5.13)")
	case errors.Is(err, unix.EOPNOTSUPP):
		reasons = append(reasons, "Landlock is built into this kernel but not enabled at boot (add landlock to the lsm= kernel parameter)")
	case err != nil:
		reasons = append(reasons, fmt.Sprintf("asking the kernel for its Landlock ABI failed: %v", err))
	case abi < minLandlockABI:
		v.ABI = abi
		reasons = append(reasons, fmt.Sprintf("this kernel's Landlock is ABI %d, which cannot let a task move files between its own directories; "+
			"vx applies ABI %d and later (Linux 5.19)", abi, minLandlockABI))
	default:
		v.Landlock, v.ABI = true, abi
		v.Enforced = append(v.Enforced, "filesystem writes")
		if abi >= 3 {
			v.Enforced = append(v.Enforced, "file truncation")
		}
		if abi >= 4 {
			v.Enforced = append(v.Enforced, "TCP connect and bind")
		}
	}
	if err := observerAvailable(); err != nil {
		reasons = append(reasons, "violations cannot be learned: "+err.Error())
	} else {
		v.Observer = observerName
	}
	v.Reason = strings.Join(reasons, "; ")
	return v
}

func observerAvailable() error {
	if auditArch == 0 {
		return fmt.Errorf("the seccomp observer does not know this CPU architecture's system calls")
	}
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return fmt.Errorf("the kernel has no seccomp user notification (Linux 5.5 or later with CONFIG_SECCOMP_FILTER): %v", e)
	}
	return nil
}
