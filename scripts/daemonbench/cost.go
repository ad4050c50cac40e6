package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procCost sums over a process's threads the CPU time they ran and how
// many times they were put on a CPU (/proc/PID/task/TID/schedstat). Unlike
// a latency, what a call costs the server in CPU and in wake-ups hardly
// depends on what else the machine runs.
func procCost(pid int) (cpu time.Duration, slices int64, err error) {
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(paths) == 0 {
		return 0, 0, fmt.Errorf("reading the scheduler statistics of process %d: %v", pid, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended
		}
		f := strings.Fields(string(b))
		if len(f) < 3 {
			continue
		}
		ns, _ := strconv.ParseInt(f[0], 10, 64)
		n, _ := strconv.ParseInt(f[2], 10, 64)
		cpu += time.Duration(ns)
		slices += n
	}
	return cpu, slices, nil
}

// cost is what n calls of a target cost the server process serving it.
type cost struct {
	cpu       time.Duration // per call
	slicesPer float64
	calls     int
}

// serverCost runs n calls of each target in five interleaved rounds and
// reads the CPU time and scheduling of each target's server around its
// own calls.
func serverCost(ts []*target, n int) ([]cost, error) {
	out := make([]cost, len(ts))
	const k = 5
	for r := 0; r < k; r++ {
		for i, t := range ts {
			cpu0, sl0, err := procCost(t.pid)
			if err != nil {
				return nil, err
			}
			for j := 0; j < n/k; j++ {
				if _, _, err := t.call(); err != nil {
					return nil, fmt.Errorf("%s: %w", t.name, err)
				}
			}
			cpu1, sl1, err := procCost(t.pid)
			if err != nil {
				return nil, err
			}
			out[i].calls += n / k
			out[i].cpu += cpu1 - cpu0
			out[i].slicesPer += float64(sl1 - sl0)
		}
	}
	for i := range out {
		out[i].cpu /= time.Duration(out[i].calls)
		out[i].slicesPer /= float64(out[i].calls)
	}
	return out, nil
}

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }
