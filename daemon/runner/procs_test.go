//go:build unix

package runner

import (
	"syscall"
	"testing"
)

// TestPeakWithoutCgroup: without a cgroup measuring memory, a task's
// ru_maxrss counts only when it exceeds vx's own peak at the start: below
// it, the figure is vx's pages the child shared before exec, and no peak
// is kept.
func TestPeakWithoutCgroup(t *testing.T) {
	p := &taskProcs{ps: &procState{}}
	p.started(0)
	if p.vxHWM <= 0 {
		t.Fatalf("vx's own peak is %d; want it measured", p.vxHWM)
	}
	unit := maxRSS(&syscall.Rusage{Maxrss: 1}) // 1024 on Linux, 1 on darwin
	for _, tc := range []struct {
		maxrss int64
		want   int64
	}{
		{p.vxHWM / unit, 0},
		{p.vxHWM/unit - 100, 0},
		{p.vxHWM/unit + 4096, (p.vxHWM/unit + 4096) * unit},
	} {
		if got := p.peak(&syscall.Rusage{Maxrss: tc.maxrss}); got != tc.want {
			t.Errorf("ru_maxrss %d with vx at %d bytes: peak %d, want %d", tc.maxrss, p.vxHWM, got, tc.want)
		}
	}
	if got := p.peak(nil); got != 0 {
		t.Errorf("no rusage: peak %d, want 0", got)
	}
}
