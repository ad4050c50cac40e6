package ops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/failures"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// CacheStatsInput narrows CacheStats.
type CacheStatsInput struct {
	Scope *CacheScope `json:"scope,omitempty" jsonschema:"narrow the numbers"`
	// CheckRemote also asks the remote cache server (a network request).
	CheckRemote bool `json:"checkRemote,omitempty" jsonschema:"also ask the remote cache server: reachable, authorized, enabled, round-trip time"`
}

// CacheScope narrows the cache statistics.
type CacheScope struct {
	Project string `json:"project,omitempty" jsonschema:"a project name"`
}

func (in CacheStatsInput) project() string {
	if in.Scope == nil {
		return ""
	}
	return in.Scope.Project
}

// CacheStatsOutput is the state of the cache.
type CacheStatsOutput struct {
	Project       string     `json:"project,omitempty"`
	Entries       int        `json:"entries"`
	Bytes         int64      `json:"bytes"`
	Oldest        *time.Time `json:"oldest"`
	Newest        *time.Time `json:"newest"`
	Runs24h       int        `json:"runs24h"`
	Executions24h int        `json:"executions24h"`
	Hits24h       int        `json:"hits24h"`
	HitRate24h    float64    `json:"hitRate24h"`
	Dir           string     `json:"dir"`
	// Hits24h split by the cache that answered them.
	LocalHits24h      int                     `json:"localHits24h"`
	RemoteHits24h     int                     `json:"remoteHits24h"`
	Remote            *wire.RemoteStatus      `json:"remote,omitempty"`
	RemoteActivity24h *history.RemoteActivity `json:"remoteActivity24h,omitempty"`
}

// CacheStats answers getCacheStats.
func CacheStats(ctx context.Context, e *Env, in CacheStatsInput) (*CacheStatsOutput, error) {
	project := in.project()
	if project != "" {
		if m, err := e.CurrentModel(); err == nil {
			if _, ok := m.Project(project); !ok {
				return nil, opkit.Refuse("scope.project", "no project named %q%s", project, workspace.CloseHint(project, projectNames(m)))
			}
		}
	}
	c, err := e.Cache()
	if err != nil {
		return nil, err
	}
	st, err := c.Stats(project)
	if err != nil {
		return nil, err
	}
	out := &CacheStatsOutput{Project: project, Entries: st.Entries, Bytes: st.Bytes, Dir: c.Dir()}
	if !st.Oldest.IsZero() {
		out.Oldest, out.Newest = &st.Oldest, &st.Newest
	}
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	out.Runs24h, out.Executions24h, out.Hits24h, err = h.CacheActivity(ctx, time.Now().Add(-24*time.Hour), project)
	if err != nil {
		return nil, err
	}
	if out.Executions24h > 0 {
		out.HitRate24h = round3(float64(out.Hits24h) / float64(out.Executions24h))
	}
	if err := remoteActivity24h(ctx, e, h, project, in.CheckRemote, out); err != nil {
		return nil, err
	}
	return out, nil
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// RunHistoryInput narrows RunHistory.
type RunHistoryInput struct {
	Project string       `json:"project,omitempty" jsonschema:"a project name"`
	Task    string       `json:"task,omitempty" jsonschema:"a task name such as build (not project#task)"`
	Limit   *opkit.Limit `json:"limit,omitempty" jsonschema:"recent rows, 1..500 (default 50), clamped"`
}

// RunHistoryOutput is recent executions plus per-task statistics.
type RunHistoryOutput struct {
	Limit  int                `json:"limit"`
	Note   string             `json:"note,omitempty"`
	Recent []history.ExecRow  `json:"recent"`
	Tasks  []history.TaskStat `json:"tasks"`
}

// RunHistory answers getRunHistory.
func RunHistory(ctx context.Context, e *Env, in RunHistoryInput) (*RunHistoryOutput, error) {
	if in.Task != "" {
		if _, _, ok := workspace.SplitTaskID(in.Task); ok || containsHash(in.Task) {
			return nil, opkit.Refuse("task", "%q is a task id; task takes a task name such as \"build\" (narrow the project with project)", in.Task)
		}
	}
	limit, note := clamp(in.Limit, 50, 1, 500)
	if note != "" {
		note = fmt.Sprintf("%s: %d (limit accepts 1..500)", note, limit)
	}
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	scopeNote, err := e.checkHistoryScope(ctx, h, in.Project, in.Task)
	if err != nil {
		return nil, err
	}
	note = joinNotes(note, scopeNote)
	f := history.Filter{Project: in.Project, Task: in.Task, Limit: limit}
	recent, err := h.RecentExecutions(ctx, f)
	if err != nil {
		return nil, err
	}
	f.Limit = 0
	if in.Project == "" && in.Task == "" {
		// Workspace-wide, statistics cover the tasks the recent rows show,
		// so the answer stays small in a large workspace.
		seen := map[string]bool{}
		for _, r := range recent {
			if !seen[r.TaskID] {
				seen[r.TaskID] = true
				f.TaskIDs = append(f.TaskIDs, r.TaskID)
			}
		}
		if len(f.TaskIDs) > 0 {
			note = strings.TrimPrefix(note+"; statistics cover the tasks of the recent rows: pass project or task for others", "; ")
		}
	}
	var stats []history.TaskStat
	if in.Project != "" || in.Task != "" || len(f.TaskIDs) > 0 {
		stats, err = h.TaskStats(ctx, f)
	}
	if err != nil {
		return nil, err
	}
	if recent == nil {
		recent = []history.ExecRow{}
	}
	if stats == nil {
		stats = []history.TaskStat{}
	}
	return &RunHistoryOutput{Limit: limit, Note: note, Recent: recent, Tasks: stats}, nil
}

// ExplainInput names a task.
type ExplainInput struct {
	TaskID opkit.TaskID `json:"taskId" jsonschema:"a task id, project#task (e.g. web#build)"`
}

// ExplainOutput is a task's latest cache entry. Without an entry
// (found false) only taskId, found and note are present: the entry's
// figures have no value, and a zero would read as one.
type ExplainOutput struct {
	TaskID     string    `json:"taskId"`
	Found      bool      `json:"found"`
	Key        string    `json:"key,omitempty"`
	Command    string    `json:"command,omitempty"`
	ExitCode   *int      `json:"exitCode,omitempty"`
	DurationMs *int64    `json:"durationMs,omitempty"`
	Bytes      *int64    `json:"bytes,omitempty"`
	Files      *int      `json:"files,omitempty"`
	Created    time.Time `json:"created,omitzero"`
	Note       string    `json:"note,omitempty"`
}

// ExplainCacheKey answers explainCacheKey.
func ExplainCacheKey(ctx context.Context, e *Env, in ExplainInput) (*ExplainOutput, error) {
	c, err := e.Cache()
	if err != nil {
		return nil, err
	}
	taskID := string(in.TaskID)
	ent, err := c.Latest(taskID)
	if errors.Is(err, cache.ErrMiss) {
		return &ExplainOutput{TaskID: taskID, Note: "no cache entry for this task" + e.taskHint(taskID)}, nil
	}
	if err != nil {
		return nil, err
	}
	return &ExplainOutput{TaskID: taskID, Found: true, Key: ent.Key, Command: e.Masker.String(ent.Command), ExitCode: &ent.ExitCode,
		DurationMs: &ent.DurationMs, Bytes: &ent.Size, Files: &ent.Files, Created: ent.Created}, nil
}

// PruneInput bounds the cache.
type PruneInput struct {
	OlderThan string `json:"olderThan,omitempty" jsonschema:"evict entries older than this age: 30m, 12h, 7d, 2w" flag:"older-than" arg:"AGE" help:"evict entries older than AGE: 30m, 12h, 7d, 2w"`
	MaxSize   string `json:"maxSize,omitempty" jsonschema:"then evict oldest first down to this size: 500MB, 2GiB" flag:"max-size" arg:"SIZE" help:"then evict oldest first down to SIZE: 500MB, 2GiB"`
	// DryRun nil is a dry run: an agent asks for deleting explicitly (the
	// command line always says, --dry-run or not).
	DryRun *bool `json:"dryRun,omitempty" jsonschema:"default true: report without deleting; false deletes" flag:"dry-run" help:"report what would be evicted, delete nothing"`
}

// PruneOutput is pruneCache's answer: what was (or would be) evicted and
// what remains; where vxd keeps plans, a dry run's planId and expiresAt,
// with which pruneCache {planId} evicts exactly those entries.
type PruneOutput struct {
	cache.PruneResult
	PlanID    string     `json:"planId,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// ApproveWith, under mcp.confirm, says where a person approves the
	// plan before pruneCache {planId} applies it.
	ApproveWith string `json:"approveWith,omitempty"`
}

// PruneCache is Prune as pruneCache answers it.
func PruneCache(ctx context.Context, e *Env, in PruneInput) (*PruneOutput, error) {
	r, err := Prune(ctx, e, in)
	if err != nil {
		return nil, err
	}
	return &PruneOutput{PruneResult: *r}, nil
}

func (in PruneInput) dryRun() bool { return in.DryRun == nil || *in.DryRun }

// Prune answers `vx cache prune` and pruneCache. It writes (unless
// DryRun), so it opens the cache for writing.
func Prune(ctx context.Context, e *Env, in PruneInput) (*cache.PruneResult, error) {
	var o cache.PruneOptions
	var err error
	if in.OlderThan != "" {
		if o.OlderThan, err = cache.ParseAge(in.OlderThan); err != nil {
			return nil, opkit.Refuse("olderThan", "%v", err)
		}
	}
	if in.MaxSize != "" {
		if o.MaxSize, err = cache.ParseSize(in.MaxSize); err != nil {
			return nil, opkit.Refuse("maxSize", "%v", err)
		}
	}
	o.DryRun, o.Now = in.dryRun(), time.Now()
	c, err := cache.Open(layout.Cache(e.Root), &cache.Options{ReadOnly: o.DryRun})
	if err != nil {
		return nil, err
	}
	res, err := c.Prune(ctx, o)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// FailuresInput selects a run ("" = the latest failed run).
type FailuresInput struct {
	RunID *opkit.RunID `json:"runId,omitempty" jsonschema:"a run id or a unique prefix (vx last --list prints them)"`
}

// Failure is one failed task of a run.
type Failure struct {
	TaskID    string              `json:"taskId"`
	Status    string              `json:"status"`
	ExitCode  *int                `json:"exitCode"`
	TimedOut  bool                `json:"timedOut"`
	Reason    string              `json:"reason,omitempty"`
	Output    string              `json:"output"`
	Truncated bool                `json:"truncated"`
	Locations []failures.Location `json:"locations"`
	// SandboxViolations: what its sandbox denied or reported (a task
	// denied into failure shows why here).
	SandboxViolations []wire.SandboxViolation `json:"sandboxViolations,omitempty"`
}

// FailuresOutput lists why a run failed.
type FailuresOutput struct {
	RunID    string    `json:"runId,omitempty"`
	Found    bool      `json:"found"`
	Failures []Failure `json:"failures"`
	Blocked  []string  `json:"blocked"`
	Note     string    `json:"note,omitempty"`
}

// maxFailures caps the failed tasks one getFailures answer carries (each
// holds up to 64 KiB of output).
const maxFailures = 20

// Failures answers getFailures.
func Failures(ctx context.Context, e *Env, in FailuresInput) (*FailuresOutput, error) {
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	run, found, err := pickRun(ctx, h, in.RunID, h.LatestFailedRun)
	if err != nil {
		return nil, err
	}
	if !found {
		return &FailuresOutput{Failures: []Failure{}, Blocked: []string{}, Note: "no failed run in this workspace's history"}, nil
	}
	ex, err := h.Executions(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	out := &FailuresOutput{RunID: run.ID, Found: true, Failures: []Failure{}, Blocked: []string{}}
	m, _ := e.CurrentModel()
	for _, x := range ex {
		switch x.Status {
		case "failed", "timedOut", "interrupted":
		case "blocked":
			out.Blocked = append(out.Blocked, x.TaskID)
			continue
		default:
			continue
		}
		text := e.Masker.String(string(x.Output))
		f := Failure{TaskID: x.TaskID, Status: x.Status, ExitCode: x.ExitCode, TimedOut: x.TimedOut, Reason: e.Masker.String(x.Reason), Output: text, Truncated: x.OutputTruncated,
			SandboxViolations: x.SandboxViolations}
		dir := e.Root
		if m != nil {
			if p, ok := m.Project(x.Project); ok {
				dir = filepath.Join(e.Root, filepath.FromSlash(p.Dir))
			}
		}
		f.Locations = failures.Locate(text, dir, e.Root)
		if f.Locations == nil {
			f.Locations = []failures.Location{}
		}
		out.Failures = append(out.Failures, f)
	}
	if len(out.Failures) == 0 {
		out.Note = fmt.Sprintf("run %s (%s) has no failed task", run.ID, run.Status)
	}
	if n := len(out.Failures); n > maxFailures {
		out.Failures = out.Failures[:maxFailures]
		out.Note = fmt.Sprintf("showing %d of %d failed tasks: getTaskLog gives any one task's output", maxFailures, n)
	}
	return out, nil
}

// CompareInput selects the run to compare with the one before it.
type CompareInput struct {
	RunID *opkit.RunID `json:"runId,omitempty" jsonschema:"a run id or a unique prefix (vx last --list prints them)"`
}

// CompareOutput diffs a run against the previous one.
type CompareOutput struct {
	RunID         string             `json:"runId"`
	PreviousRunID string             `json:"previousRunId,omitempty"`
	Found         bool               `json:"found"`
	Tasks         []wire.TaskDelta   `json:"tasks"`
	Totals        wire.CompareTotals `json:"totals"`
	Note          string             `json:"note,omitempty"`
}

// maxDeltas caps the per-task rows of compareRuns.
const maxDeltas = 500

// CompareRuns answers compareRuns.
func CompareRuns(ctx context.Context, e *Env, in CompareInput) (*CompareOutput, error) {
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	run, found, err := pickRun(ctx, h, in.RunID, h.LatestRun)
	if err != nil {
		return nil, err
	}
	if !found {
		return &CompareOutput{Tasks: []wire.TaskDelta{}, Note: "no run recorded in this workspace yet"}, nil
	}
	out := &CompareOutput{RunID: run.ID, Found: true, Tasks: []wire.TaskDelta{}}
	prev, err := h.PreviousRun(ctx, run)
	if errors.Is(err, history.ErrNotFound) {
		out.Note = "run " + run.ID + " is the first recorded run: nothing to compare with"
		return out, nil
	} else if err != nil {
		return nil, err
	}
	out.PreviousRunID = prev.ID
	after, err := h.Executions(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	before, err := h.Executions(ctx, prev.ID)
	if err != nil {
		return nil, err
	}
	out.Tasks, out.Totals = wire.Deltas(outcomes(before), outcomes(after), prev.DurationMs, run.DurationMs)
	if n := len(out.Tasks); n > maxDeltas {
		// Changed tasks first, so what moved survives the cap.
		sort.SliceStable(out.Tasks, func(i, j int) bool { return out.Tasks[i].Change != "same" && out.Tasks[j].Change == "same" })
		out.Tasks = out.Tasks[:maxDeltas]
		out.Note = fmt.Sprintf("showing %d of %d tasks (changed ones first); the totals cover all", maxDeltas, n)
	}
	return out, nil
}

// TrendsInput picks the bucket size and count.
type TrendsInput struct {
	Bucket opkit.Bucket `json:"bucket,omitempty" jsonschema:"bucket size (default hour)"`
	Limit  *opkit.Limit `json:"limit,omitempty" jsonschema:"buckets, 1..1000 (default 24), clamped"`
}

// TrendsOutput is activity per bucket, newest first.
type TrendsOutput struct {
	Bucket  string           `json:"bucket"`
	Limit   int              `json:"limit"`
	Note    string           `json:"note,omitempty"`
	Buckets []history.Bucket `json:"buckets"`
}

// RunTrends answers runTrends.
func RunTrends(ctx context.Context, e *Env, in TrendsInput) (*TrendsOutput, error) {
	b := string(in.Bucket)
	if b == "" {
		b = "hour"
	}
	if b != "hour" && b != "day" {
		return nil, opkit.Refuse("bucket", "%q is not a bucket (use \"hour\" or \"day\")", in.Bucket)
	}
	limit, note := clamp(in.Limit, 24, 1, 1000)
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	bs, err := h.Trends(ctx, b, limit)
	if err != nil {
		return nil, err
	}
	if bs == nil {
		bs = []history.Bucket{}
	}
	if note != "" {
		note = fmt.Sprintf("%s: %d (limit accepts 1..1000)", note, limit)
	}
	return &TrendsOutput{Bucket: b, Limit: limit, Note: note, Buckets: bs}, nil
}
