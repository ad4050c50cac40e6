package flock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A second open file of the same path cannot take the lock until the
// first lets go of it.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := TryLock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := TryLock(b); !errors.Is(err, ErrHeld) {
		t.Fatalf("second lock: %v, want ErrHeld", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b); err != nil {
		t.Fatalf("after the unlock: %v", err)
	}
	a.Close()
	if err := TryLock(open()); !errors.Is(err, ErrHeld) {
		t.Fatalf("third file: %v, want ErrHeld", err)
	}
}
