package runner

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is MEMORYSTATUSEX.
type memoryStatusEx struct {
	Length, MemoryLoad                     uint32
	TotalPhys, AvailPhys, TotalPageFile    uint64
	AvailPageFile, TotalVirtual, AvailVirt uint64
	AvailExtendedVirtual                   uint64
}

var globalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// totalMemory is the machine's memory in bytes (GlobalMemoryStatusEx), 0
// when unknown.
func totalMemory() int64 {
	m := memoryStatusEx{Length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&m))); r == 0 {
		return 0
	}
	return int64(m.TotalPhys)
}
