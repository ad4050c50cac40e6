package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The pace is the headroom over the live heap, a quarter of it at the
// least, and no more than the first collection's.
func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, firstPercent},
		{1 << 20, firstPercent},
		{Headroom, 100},
		{2 * Headroom, 50},
		{4 * Headroom, minPercent},
		{64 * Headroom, minPercent},
	} {
		if got := Percent(c.live); got != c.want {
			t.Errorf("Percent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// After each collection the pace is set from the heap it found live: with
// 4×Headroom held, a quarter; once that is freed, the first's again.
func TestStartPacesByTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Start()
	held := make([]byte, 4*Headroom)
	for i := range held {
		held[i] = 1
	}
	waitPercent(t, minPercent)
	runtime.KeepAlive(held)
	held = nil
	waitPercent(t, firstPercent)
}

// waitPercent collects until the finalizer has set GOGC to want.
func waitPercent(t *testing.T, want int) {
	t.Helper()
	got := 0
	for range 100 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
		got = debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got == want {
			return
		}
	}
	t.Fatalf("GOGC is %d, want %d", got, want)
}
