package wire

// ExecutionsDefined is what "executions" and "hits" count wherever vx
// reports them over runs (vxd's runTrends and getCacheStats, the
// platform's run_trends and cache_stats): one definition, said in each tool's
// description.
const ExecutionsDefined = "executions counts every task outcome the runs recorded (ran, cache hit, blocked, skipped or interrupted), " +
	"cache hits included; hits are those restored from a cache; hitRate is hits/executions."

// TaskDelta is one task's change between two runs.
type TaskDelta struct {
	TaskID          string `json:"taskId"`
	Change          string `json:"change"` // added, removed, changed, same
	StatusBefore    string `json:"statusBefore,omitempty"`
	StatusAfter     string `json:"statusAfter,omitempty"`
	CacheBefore     string `json:"cacheBefore,omitempty"`
	CacheAfter      string `json:"cacheAfter,omitempty"`
	DurationBefore  int64  `json:"durationMsBefore"`
	DurationAfter   int64  `json:"durationMsAfter"`
	DurationDeltaMs int64  `json:"durationDeltaMs"`
	KeyChanged      bool   `json:"keyChanged"`
}

// CompareTotals sums the comparison of a run with the run before it. The
// durations are the runs' wall times (what a run's header, list_runs and
// getRunHistory answer), not sums of their tasks'.
type CompareTotals struct {
	DurationMsBefore int64 `json:"durationMsBefore"`
	DurationMsAfter  int64 `json:"durationMsAfter"`
	DurationDeltaMs  int64 `json:"durationDeltaMs"`
	KeysChanged      int   `json:"keysChanged"`
	StatusChanged    int   `json:"statusChanged"`
	Added            int   `json:"added"`
	Removed          int   `json:"removed"`
	HitsBefore       int   `json:"hitsBefore"`
	HitsAfter        int   `json:"hitsAfter"`
}

// TaskOutcome is what a comparison reads of one task's execution: vxd
// reads it from the local history, the platform from PostgreSQL.
type TaskOutcome struct {
	TaskID, Status, Cache, Key string
	DurationMs                 int64
}

// Deltas compares the tasks of a run (after) with those of the run before
// it: a row per task of after, in its order, then one per task only the
// earlier run had; and the totals of both, whose durations are the runs'
// wall times wallBefore and wallAfter. vxd's compareRuns and the
// platform's compare_runs both answer with it.
func Deltas(before, after []TaskOutcome, wallBefore, wallAfter int64) ([]TaskDelta, CompareTotals) {
	t := CompareTotals{DurationMsBefore: wallBefore, DurationMsAfter: wallAfter, HitsBefore: hits(before), HitsAfter: hits(after)}
	old := make(map[string]TaskOutcome, len(before))
	for _, o := range before {
		old[o.TaskID] = o
	}
	out := make([]TaskDelta, 0, len(after))
	seen := make(map[string]bool, len(after))
	for _, x := range after {
		seen[x.TaskID] = true
		d := TaskDelta{TaskID: x.TaskID, StatusAfter: x.Status, CacheAfter: x.Cache, DurationAfter: x.DurationMs, Change: "added"}
		if o, ok := old[x.TaskID]; ok {
			d.StatusBefore, d.CacheBefore, d.DurationBefore = o.Status, o.Cache, o.DurationMs
			d.KeyChanged = o.Key != x.Key
			d.Change = "same"
			if d.KeyChanged || o.Status != x.Status || o.Cache != x.Cache {
				d.Change = "changed"
			}
			if d.KeyChanged {
				t.KeysChanged++
			}
			if o.Status != x.Status {
				t.StatusChanged++
			}
		} else {
			t.Added++
		}
		d.DurationDeltaMs = d.DurationAfter - d.DurationBefore
		out = append(out, d)
	}
	for _, o := range before {
		if !seen[o.TaskID] {
			out = append(out, TaskDelta{TaskID: o.TaskID, Change: "removed", StatusBefore: o.Status, CacheBefore: o.Cache, DurationBefore: o.DurationMs, DurationDeltaMs: -o.DurationMs})
			t.Removed++
		}
	}
	t.DurationDeltaMs = t.DurationMsAfter - t.DurationMsBefore
	return out, t
}

// hits counts the outcomes that were cache hits.
func hits(xs []TaskOutcome) int {
	n := 0
	for _, x := range xs {
		if x.Cache == CacheHit {
			n++
		}
	}
	return n
}
