package flock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// wholeFile is the byte range LockFileEx locks: all of it (the lock is on
// a range, and a range past the end is allowed).
const wholeFile = ^uint32(0)

// TryLock takes an exclusive lock on f without waiting (LockFileEx with
// LOCKFILE_FAIL_IMMEDIATELY): ErrHeld when another open file holds it.
// Windows releases it when the last handle of f closes, by a kill too.
func TryLock(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, wholeFile, wholeFile, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrHeld
	}
	return err
}

// Unlock lets go of f's lock (closing f does too).
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, wholeFile, wholeFile, new(windows.Overlapped))
}
