//go:build unix

package flock

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock on f without waiting: ErrHeld when
// another open file holds it.
func TryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrHeld
		}
		return err
	}
}

// Unlock lets go of f's lock (closing f does too).
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
