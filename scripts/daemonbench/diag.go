package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
)

// loadTime times workspace.Load of the workspace in this process: the
// bulk of what vxd does on a config edit after its debounce.
func loadTime(root string, n int) (time.Duration, error) {
	var s samples
	for i := 0; i < n+1; i++ {
		t0 := time.Now()
		if _, err := workspace.Load(root); err != nil {
			return 0, err
		}
		if i > 0 {
			s.add(time.Since(t0))
		}
	}
	return s.pct(50), nil
}

// historyPhases times, in this process on the same database, the parts
// getRunHistory limit=50 is made of: what is over the HTTP floor comes
// from these (the daemon cannot be profiled over HTTP).
func historyPhases(ctx context.Context, root string) (string, error) {
	s, err := history.OpenReadOnly(ctx, history.Path(root), nil)
	if err != nil {
		return "", err
	}
	defer s.Close()
	const n = 15
	var recent []history.ExecRow
	var stats []history.TaskStat
	var body []byte
	var tRecent, tStats, tJSON samples
	for i := 0; i < n+2; i++ {
		t0 := time.Now()
		if recent, err = s.RecentExecutions(ctx, history.Filter{Limit: 50}); err != nil {
			return "", err
		}
		t1 := time.Now()
		if stats, err = s.TaskStats(ctx, history.Filter{}); err != nil {
			return "", err
		}
		t2 := time.Now()
		if body, err = json.Marshal(map[string]any{"limit": 50, "recent": recent, "tasks": stats}); err != nil {
			return "", err
		}
		t3 := time.Now()
		if i >= 2 {
			tRecent.add(t1.Sub(t0))
			tStats.add(t2.Sub(t1))
			tJSON.add(t3.Sub(t2))
		}
	}
	return fmt.Sprintf("getRunHistory limit=50, its phases timed in the benchmark process on the same "+
		"database (p50 of %d): history.RecentExecutions(limit 50) %s; history.TaskStats(no filter) %s for %d tasks; "+
		"json.Marshal of recent+tasks %s for %d B — the answer carries it twice (structuredContent and text)",
		n, ms(tRecent.pct(50)), ms(tStats.pct(50)), len(stats), ms(tJSON.pct(50)), len(body)), nil
}
