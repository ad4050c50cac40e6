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

// serverCost runs n calls of each target in five rounds and reads the CPU
// time and scheduling of each target's server around them. Targets served
// by different processes take turns call by call, each round's counters
// read around the whole round, so that every server's figure covers the
// same moments of the machine's load; targets sharing a process (vxd's
// listTasks and ping) are measured one after the other instead.
func serverCost(ts []*target, n int) ([]cost, error) {
	out := make([]cost, len(ts))
	pids := map[int]bool{}
	for _, t := range ts {
		pids[t.pid] = true
	}
	groups := [][]int{}
	if len(pids) == len(ts) {
		all := make([]int, len(ts))
		for i := range all {
			all[i] = i
		}
		groups = append(groups, all)
	} else {
		for i := range ts {
			groups = append(groups, []int{i})
		}
	}
	const k = 5
	for r := 0; r < k; r++ {
		for _, g := range groups {
			if err := costRound(ts, g, n/k, out); err != nil {
				return nil, err
			}
		}
	}
	for i := range out {
		out[i].cpu /= time.Duration(out[i].calls)
		out[i].slicesPer /= float64(out[i].calls)
	}
	return out, nil
}

// costRound makes n calls of each target in g, in turns, and adds what
// each server spent to out.
func costRound(ts []*target, g []int, n int, out []cost) error {
	cpu0, sl0 := make([]time.Duration, len(g)), make([]int64, len(g))
	for j, i := range g {
		var err error
		if cpu0[j], sl0[j], err = procCost(ts[i].pid); err != nil {
			return err
		}
	}
	for c := 0; c < n; c++ {
		for j := range g {
			t := ts[g[(c+j)%len(g)]]
			if _, _, err := t.call(); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
	}
	for j, i := range g {
		cpu1, sl1, err := procCost(ts[i].pid)
		if err != nil {
			return err
		}
		out[i].calls += n
		out[i].cpu += cpu1 - cpu0[j]
		out[i].slicesPer += float64(sl1 - sl0[j])
	}
	return nil
}

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }
