package gcpace

import (
	"math"
	"os"
	"os/exec"
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
		{headroom, 100},
		{2 * headroom, 50},
		{4 * headroom, minPercent},
		{64 * headroom, minPercent},
		{1 << 40, minPercent}, // a huge heap: still a pace, never off
		{math.MaxUint64, minPercent},
	} {
		if got := percent(c.live); got != c.want {
			t.Errorf("Percent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// After each collection the pace is set from the heap it found live: with
// 2×Headroom held, half; once that is freed, the first's again.
func TestStartPacesByTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Start()
	held := make([]byte, 2*headroom) // live, if never touched
	// Half, or a little less: the test's own heap is live too.
	waitPercent(t, "at most 50", func(p int) bool { return p <= 50 && p > minPercent })
	runtime.KeepAlive(held)
	held = nil
	waitPercent(t, "the first collection's", func(p int) bool { return p == firstPercent })
}

// waitPercent collects until the finalizer has set GOGC to what ok wants.
func waitPercent(t *testing.T, want string, ok func(int) bool) {
	t.Helper()
	got := 0
	for range 100 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
		got = debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if ok(got) {
			return
		}
	}
	t.Fatalf("GOGC is %d, want %s", got, want)
}

// With GOGC in the environment, Start leaves the pace to it: collections
// never change it.
func TestGOGCFromTheEnvironmentDecides(t *testing.T) {
	if os.Getenv("GCPACE_CHILD") == "1" {
		debug.SetGCPercent(400) // as the runtime set it from GOGC=400
		Start()
		held := make([]byte, 4*headroom)
		for range 5 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		runtime.KeepAlive(held)
		if got := debug.SetGCPercent(400); got != 400 {
			t.Fatalf("GOGC=400 in the environment, the pace is %d", got)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGOGCFromTheEnvironmentDecides$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GCPACE_CHILD=1", "GOGC=400")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
