package server

import (
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// TestPublishPaced: a burst read back from an event file reaches a
// subscriber that reads slower than the burst comes, while a subscriber
// that never reads is still dropped.
func TestPublishPaced(t *testing.T) {
	f := NewFeed()
	reader, cancelReader := f.Subscribe()
	defer cancelReader()
	stalled, cancelStalled := f.Subscribe()
	defer cancelStalled()
	const burst = 2000
	got := make(chan int)
	go func() {
		n := 0
		for range reader {
			n++
			time.Sleep(100 * time.Microsecond) // slower than the burst
			if n == burst {
				break
			}
		}
		got <- n
	}()
	for i := range burst {
		f.PublishPaced(wire.Event{Type: wire.EventTaskFinished, TaskID: string(rune('a' + i%26))})
	}
	if n := <-got; n != burst {
		t.Errorf("the reading subscriber got %d of %d events", n, burst)
	}
	queued := 0
	for range stalled {
		queued++
	}
	if queued == burst {
		t.Errorf("the stalled subscriber was never dropped")
	}
}
