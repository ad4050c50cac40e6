//go:build unix

package plugins

import (
	"crypto/sha256"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHashFileRefusesAFIFOWithoutBlocking: a matched file that is (or
// links to) a FIFO is refused at once; opening it first would wait for a
// writer forever and hang the workspace's load.
func TestHashFileRefusesAFIFOWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- hashFile(fifo, sha256.New()) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO was hashed as a file")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hashing a FIFO blocked (it was opened before it was looked at)")
	}
}
