//go:build !windows

package engine_test

import (
	"runtime"
	"testing"
)

// TestPeakNotHiddenByAHeavyParent: vx started by a process with a large
// high-water mark (vxd starting runTasks' vx run, or this test binary) still
// records a task's own peak: the mark vx compares a task's ru_maxrss with
// is vx's own, not the one getrusage carries over from its parent through
// the exec.
func TestPeakNotHiddenByAHeavyParent(t *testing.T) {
	// Not parallel: the buffer must be resident while vx starts.
	ballast := make([]byte, 200<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	ws := workspace(t, "peak")
	var sum struct {
		Tasks []map[string]any `json:"tasks"`
	}
	r := vx(t, ws, nil, "run", "heavy", "--format", "json")
	runtime.KeepAlive(ballast)
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	decodeOnly(t, r, &sum)
	for _, row := range sum.Tasks {
		if row["taskId"] == "p#heavy" {
			if f, _ := row["peakRssBytes"].(float64); f < 150<<20 {
				t.Errorf("p#heavy (150 MiB buffer), run by a 200 MiB parent, records peak %v, want at least %d", row["peakRssBytes"], 150<<20)
			}
			return
		}
	}
	t.Fatalf("no p#heavy row: %v", sum.Tasks)
}
