// Package gcpace sets the Go collector's pace (GOGC) from the live heap
// each collection measures, for a short-lived process whose live heap
// grows with the workspace: a fixed GOGC is either too eager for a small
// workspace (a collection per few MB allocated, for a heap that is freed
// at exit anyway) or lets a large one's heap grow to many times what it
// holds (GOGC 1000 let a no-op run at 10,000 packages reach 258 MB for
// ~85 MB live). A fixed memory limit instead makes the collector run
// constantly once the live heap nears it.
//
// The pace keeps the heap under the live heap plus a headroom: Headroom
// bytes while the live heap is small, a quarter of it once that is more.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// headroom is what the heap may grow by past the live heap before the
// next collection, at the least.
const headroom = 16 << 20

// minPercent is the pace with a large live heap: a quarter of it again.
const minPercent = 25

// firstPercent is the pace before the first collection (which the
// runtime starts at a 4 MB heap): 1000 lets the first wait for 44 MB, so a
// run that allocates less than that (a fully cached 1,000-package run,
// about 20 MB) never collects at all.
const firstPercent = 1000

// percent is the GOGC that lets a heap of live bytes grow by Headroom, or
// by a quarter when that is more.
func percent(live uint64) int {
	if live == 0 {
		return firstPercent
	}
	p := int(headroom * 100 / live)
	return min(max(p, minPercent), firstPercent)
}

var startOnce sync.Once

// Start paces the collector from now on, unless GOGC is set in the
// environment (which then decides, as for any Go program).
func Start() {
	if os.Getenv("GOGC") != "" {
		return
	}
	startOnce.Do(func() {
		debug.SetGCPercent(firstPercent)
		arm(new(sentinel))
	})
}

// sentinel is garbage whose finalizer runs once after each collection:
// it re-arms itself with the pace the collection's live heap calls for.
type sentinel struct{ _ [16]byte }

func arm(s *sentinel) {
	runtime.SetFinalizer(s, func(s *sentinel) {
		debug.SetGCPercent(percent(liveHeap()))
		arm(s)
	})
}

// liveHeap is the heap the last collection marked live.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
