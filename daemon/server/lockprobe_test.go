package server

import (
	"os"
	"testing"
	"time"

	"github.com/vzn/vx/internal/flock"
	"github.com/vzn/vx/protocol/layout"
)

// TestLockOutlastsAProbe: a client asks whether a daemon runs by taking
// the lock for a moment (client.locked); a daemon starting in that moment
// still takes the lock once the probe lets go, instead of taking the probe
// for another daemon and exiting.
func TestLockOutlastsAProbe(t *testing.T) {
	root := t.TempDir()
	f, err := lockDaemon(root) // creates the directory and the file
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	probe, err := os.OpenFile(layout.DaemonLock(root), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := flock.TryLock(probe); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		g, err := lockDaemon(root)
		if err == nil {
			g.Close()
		}
		got <- err
	}()
	time.Sleep(time.Millisecond) // a probe's moment (Lock retries for 100 ms)
	probe.Close()
	if err := <-got; err != nil {
		t.Fatalf("Lock while a probe held the lock for a moment: %v", err)
	}
}
