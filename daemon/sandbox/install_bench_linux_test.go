package sandbox

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// What installing the observer's filter costs the kernel, on a fresh
// thread each time as Start does (the thread ends with its goroutine).
func BenchmarkInstall(b *testing.B) {
	_, prog, err := observed(false)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked: the filtered thread ends
			if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
				done <- err
				return
			}
			fd, err := installObserver(prog)
			if err == nil {
				unix.Close(fd)
			}
			done <- err
		}()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}
