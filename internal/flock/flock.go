// Package flock takes the advisory whole-file locks that say a workspace
// has its daemon: held through an open file, released when its last
// descriptor closes, by kill -9 too. The OS's call is in flock_unix.go.
package flock

import "errors"

// ErrHeld is TryLock's answer when another open file holds the lock.
var ErrHeld = errors.New("the lock is held by another process")
