package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// TestCollectorFollowsTheLiveHeap: vxd's live heap grows with the
// workspace (the change journal's watch of 20,000 directories and the
// model of 10,000 projects hold some 35 MB); the collector's goal must
// stay above what it holds, or it collects without end (a fixed 32 MiB
// limit made vxd spend a quarter of its CPU marking, on the two cores the
// run it serves needs).
func TestCollectorFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	limitMemory()
	held := make([][]byte, 0, 48)
	for range 48 {
		held = append(held, make([]byte, 1<<20))
	}
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	live, goal := s[0].Value.Uint64(), s[1].Value.Uint64()
	runtime.KeepAlive(held)
	if goal <= live {
		t.Fatalf("the collector's goal is %d MiB with %d MiB live: it collects again at once", goal>>20, live>>20)
	}
}
