package wine

import (
	"sync"
	"syscall"
)

// Running reports whether this Windows program runs under wine: its
// ntdll exports wine_get_version, which Windows' does not.
var Running = sync.OnceValue(func() bool {
	return syscall.NewLazyDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})
