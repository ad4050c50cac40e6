package cli

import (
	"os"
	"runtime/debug"
)

// memoryLimit is serve's soft limit on the Go runtime's memory (see
// runtime/debug.SetMemoryLimit). The platform's bounds keep its live heap
// under it (two tool calls computed at once, 48 MiB of answers held, a
// pushed run of at most 32 MiB); the limit makes the collector run sooner
// once bursts of large answers leave garbage, so that the RSS follows the
// live heap rather than doubling with GOGC. A live heap over it only makes
// collection more frequent, never fails an allocation. GOMEMLIMIT in the
// environment takes precedence.
const memoryLimit = 160 << 20

func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
