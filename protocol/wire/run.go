// Package wire holds the documents that cross a process or socket boundary
// between vx, vxd and their clients: the run summary and plan printed by
// `vx run --format json` / `--dry=json` (read back by the daemon's runTasks
// and planTasks), the daemon's discovery file, its status, and the events
// of its live feed.
package wire

import "time"

// Task statuses in a run summary.
const (
	StatusPassed      = "passed"
	StatusFailed      = "failed"
	StatusBlocked     = "blocked"
	StatusTimedOut    = "timedOut"
	StatusInterrupted = "interrupted"
	StatusSkipped     = "skipped"
)

// Cache outcomes of a task.
const (
	CacheHit  = "hit"
	CacheMiss = "miss"
	CacheOff  = "off"
)

// RunSummary is the document `vx run --format json` prints.
type RunSummary struct {
	RunID      string    `json:"runId"`
	OK         bool      `json:"ok"`
	ExitCode   int       `json:"exitCode"`
	Status     string    `json:"status"` // passed, failed, interrupted
	Command    string    `json:"command"`
	StartedAt  time.Time `json:"startedAt"`
	EndedAt    time.Time `json:"endedAt"`
	DurationMs int64     `json:"durationMs"`
	GitBranch  string    `json:"gitBranch,omitempty"`
	GitCommit  string    `json:"gitCommit,omitempty"`
	Totals     RunTotals `json:"totals"`
	Tasks      []TaskRow `json:"tasks"`
	Warnings   []string  `json:"warnings"`

	// Remote is what the run did with the remote cache, when one is
	// configured.
	Remote *RemoteRun `json:"remote,omitempty"`

	// RepeatOf is the run this one repeated: with vxd up, its change
	// journal proved that nothing the earlier fully cached run depended
	// on had changed, so every task was that run's hit again and no file
	// was looked at (daemon/journal, "Repeating a fully cached run").
	RepeatOf string `json:"repeatOf,omitempty"`
}

// RunTotals counts a run's tasks by outcome.
type RunTotals struct {
	Tasks       int `json:"tasks"`
	Passed      int `json:"passed"`
	Cached      int `json:"cached"`
	Failed      int `json:"failed"`
	Blocked     int `json:"blocked"`
	TimedOut    int `json:"timedOut"`
	Interrupted int `json:"interrupted"`
	Skipped     int `json:"skipped"`
	RemoteHits  int `json:"remoteHits,omitempty"` // of Cached, those answered by the remote cache
}

// Count adds one task's outcome to the totals: the one place a run's
// totals are counted, for the run summary and for a run rebuilt from
// history (vx push).
func (t *RunTotals) Count(row *TaskRow) {
	t.Tasks++
	switch row.Status {
	case StatusPassed:
		t.Passed++
		if row.Cache == CacheHit {
			t.Cached++
		}
		if row.CacheSource == CacheSourceRemote {
			t.RemoteHits++
		}
	case StatusFailed:
		t.Failed++
	case StatusBlocked:
		t.Blocked++
	case StatusTimedOut:
		t.TimedOut++
	case StatusInterrupted:
		t.Interrupted++
	case StatusSkipped:
		t.Skipped++
	}
}

// TaskRow is one task's outcome in a run.
type TaskRow struct {
	TaskID         string   `json:"taskId"`
	Project        string   `json:"project"`
	Task           string   `json:"task"`
	Status         string   `json:"status"`
	Cache          string   `json:"cache"`
	CacheSource    string   `json:"cacheSource,omitempty"` // a hit's cache: "local" or "remote"
	Key            string   `json:"key"`
	DurationMs     int64    `json:"durationMs"`
	ExitCode       *int     `json:"exitCode"`
	Reason         string   `json:"reason,omitempty"`
	BlockedBy      []string `json:"blockedBy,omitempty"`
	TimedOut       bool     `json:"timedOut,omitempty"`
	PeakRSSBytes   int64    `json:"peakRssBytes,omitempty"`
	CPUParallelism float64  `json:"cpuParallelism,omitempty"`
	Outputs        int      `json:"outputs,omitempty"`
	// SandboxViolations lists what a sandboxed task did outside its
	// declaration (see SandboxViolation).
	SandboxViolations []SandboxViolation `json:"sandboxViolations,omitempty"`
}

// Plan is the document `vx run --dry=json` prints: nothing is executed.
type Plan struct {
	Tasks     []PlanTask    `json:"tasks"`
	Predicted PlanPredicted `json:"predicted"`
	Affected  *PlanAffected `json:"affected,omitempty"`

	// Request, Prerequisites, MadeAt and ExpiresAt are what vx run
	// --dry=json adds so that vx run --plan can apply the plan: the
	// selection planned, the state it was planned against, and until when
	// it may be applied (mcp.planTtl).
	Request       *RunRequest        `json:"request,omitempty"`
	Prerequisites *PlanPrerequisites `json:"prerequisites,omitempty"`
	MadeAt        *time.Time         `json:"madeAt,omitempty"`
	ExpiresAt     *time.Time         `json:"expiresAt,omitempty"`
}

// PlanTask is one task a run would see.
type PlanTask struct {
	TaskID    string   `json:"taskId"`
	Project   string   `json:"project"`
	Task      string   `json:"task"`
	Command   string   `json:"command"`
	Cache     string   `json:"cache"` // predicted: hit, miss, off
	Key       string   `json:"key"`
	DependsOn []string `json:"dependsOn"`
	P50Ms     *int64   `json:"p50Ms"`
	Reason    string   `json:"affectedReason,omitempty"`

	// CacheSource is "remote" for a hit the remote cache holds (asked with
	// HEAD, nothing downloaded).
	CacheSource string `json:"cacheSource,omitempty"`
}

// PlanPredicted estimates a plan's cost from history p50s.
type PlanPredicted struct {
	WallMs       int64    `json:"wallMs"`
	WorkMs       int64    `json:"workMs"`
	CriticalPath []string `json:"criticalPath"`
	Unknown      []string `json:"unknown"` // tasks with no history to predict from
	Workers      int      `json:"workers"`
}

// PlanAffected says what --affected compared against.
type PlanAffected struct {
	Base     string            `json:"base"`
	Projects map[string]string `json:"projects"`
}
