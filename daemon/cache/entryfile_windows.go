package cache

import (
	"errors"
	"math/rand/v2"
	"os"
	"syscall"
	"time"
)

// On Windows a file that is open cannot be replaced by a rename, and a
// file being renamed over cannot be opened: a Put and a Get of one key in
// two processes at once meet "Access is denied" or a sharing violation
// for as long as the other holds it, which is short (an entry is read
// once, or while a Restore copies it out). Entries are opened so as to let
// a rename go ahead where Windows allows it, and both sides retry, for at
// most entryRetry, what Windows refused only because the other held it.
const entryRetry = 2 * time.Second

// openEntry opens the cache entry at path for reading, sharing it with
// deleting and renaming.
func openEntry(path string) (*os.File, error) {
	var f *os.File
	err := retryHeld(func() error {
		p, err := syscall.UTF16PtrFromString(path)
		if err != nil {
			return err
		}
		h, err := syscall.CreateFile(p, syscall.GENERIC_READ,
			syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE,
			nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
		if err != nil {
			return err
		}
		f = os.NewFile(uintptr(h), path)
		return nil
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}

// renameEntry renames a finished entry into place over any entry of
// the same key. A directory in its place is not held, it is in the way:
// that is not retried.
func renameEntry(from, to string) error {
	return retryHeld(func() error {
		err := os.Rename(from, to)
		if fi, serr := os.Lstat(to); err != nil && serr == nil && fi.IsDir() {
			return inTheWay{err}
		}
		return err
	})
}

// inTheWay is an error retryHeld does not retry.
type inTheWay struct{ error }

func (e inTheWay) Unwrap() error { return e.error }

// retryHeld runs op until it succeeds, fails for another reason than a
// file another handle holds, or entryRetry has passed.
func retryHeld(op func() error) error {
	deadline := time.Now().Add(entryRetry)
	for {
		err := op()
		if w, ok := err.(inTheWay); ok {
			return w.error
		}
		if err == nil || !heldElsewhere(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Duration(1+rand.IntN(20)) * time.Millisecond)
	}
}

// heldElsewhere reports whether err is Windows refusing a file another
// handle has open.
func heldElsewhere(err error) bool {
	const errorSharingViolation syscall.Errno = 32
	return errors.Is(err, syscall.ERROR_ACCESS_DENIED) || errors.Is(err, errorSharingViolation)
}
