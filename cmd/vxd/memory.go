package main

import (
	"os"
	"runtime/debug"
)

// memoryLimit is vxd's soft limit on the Go runtime's memory (see
// runtime/debug.SetMemoryLimit). vxd's live heap is a few MiB even with
// 1,000 projects; the limit makes the collector run sooner once a burst of
// large answers (a batch of a hundred whole-workspace listings) has left
// garbage behind, so that the RSS stays under the 60 MiB of
// docs/benchmarks.md instead of doubling with GOGC. A live heap over it
// only makes collection more frequent (the runtime bounds its CPU), never
// fails an allocation. GOMEMLIMIT in the environment takes precedence.
const memoryLimit = 32 << 20

// gcPercent is vxd's GOGC. Its live heap is small (2 to 3 MiB between
// reloads with 1,000 projects), so at the default of 100 a collection ran
// every 3 MiB allocated, some 4 times a second under a stream of warm
// calls, each costing milliseconds of CPU; at 400 it runs a quarter as
// often, and the memory limit above still caps what the heap may grow to.
// GOGC in the environment takes precedence.
const gcPercent = 400

func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
