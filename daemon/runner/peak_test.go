package runner

import (
	"syscall"
	"testing"
)

// TestPeakWithoutCgroup: without a cgroup of its own, a task's ru_maxrss
// counts only when it exceeds vx's own peak at the start: below it, the
// figure is vx's pages the child shared before exec, and no peak is kept.
func TestPeakWithoutCgroup(t *testing.T) {
	p := &peakProbe{}
	p.started()
	if p.vxHWM <= 0 {
		t.Fatalf("vx's own peak is %d; want it read from /proc/self/status", p.vxHWM)
	}
	for _, tc := range []struct {
		maxrssKB int64
		want     int64
	}{
		{p.vxHWM / 1024, 0},
		{p.vxHWM/1024 - 100, 0},
		{p.vxHWM/1024 + 4096, p.vxHWM + 4096*1024},
	} {
		if got := p.peak(&syscall.Rusage{Maxrss: tc.maxrssKB}); got != tc.want {
			t.Errorf("ru_maxrss %d kB with vx at %d bytes: peak %d, want %d", tc.maxrssKB, p.vxHWM, got, tc.want)
		}
	}
	if got := p.peak(nil); got != 0 {
		t.Errorf("no rusage: peak %d, want 0", got)
	}
}
