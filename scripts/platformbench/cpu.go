//go:build !windows

package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cpuMeter measures the CPU a phase costs — this process (the platform's
// handler and the clients) plus the PostgreSQL backends serving it — so
// that a figure taken on a busy shared machine still says what the work
// costs, whatever the wall clock says.
type cpuMeter struct {
	pool    *pgxpool.Pool
	self    time.Duration
	backend map[int]time.Duration
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is utime+stime of pid from /proc (clock ticks of 10 ms).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

func (m *cpuMeter) backends(ctx context.Context) map[int]time.Duration {
	out := map[int]time.Duration{}
	rows, err := m.pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			out[pid] = procCPU(pid)
		}
	}
	return out
}

func startCPU(ctx context.Context, pool *pgxpool.Pool) *cpuMeter {
	m := &cpuMeter{pool: pool}
	m.backend = m.backends(ctx)
	m.self = selfCPU()
	return m
}

// stop returns the CPU this process and the backends used since start.
func (m *cpuMeter) stop(ctx context.Context) (self, db time.Duration) {
	self = selfCPU() - m.self
	for pid, cpu := range m.backends(ctx) {
		db += cpu - m.backend[pid]
	}
	return self, db
}
