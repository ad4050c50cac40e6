package teamops

import (
	"github.com/vzn/vx/opkit"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// Run is a run's header.
type Run struct {
	RunID      string     `json:"runId"`
	Command    string     `json:"command"`
	GitBranch  string     `json:"gitBranch"`
	GitCommit  string     `json:"gitCommit"`
	CI         bool       `json:"ci"`
	Status     string     `json:"status"`
	ExitCode   *int       `json:"exitCode"`
	StartedAt  time.Time  `json:"startedAt"`
	EndedAt    *time.Time `json:"endedAt"`
	DurationMs int64      `json:"durationMs"`
	Tasks      int        `json:"tasks"`
	Failed     int        `json:"failed"`
	Hits       int        `json:"hits"`
	LocalHits  int        `json:"localHits"`
	RemoteHits int        `json:"remoteHits"`
	Executed   int        `json:"executed"`
}

const runCols = `id, command, git_branch, git_commit, ci, status, exit_code, started_at, ended_at, duration_ms, tasks, failed, hits, local_hits, remote_hits, executions`

func scanRun(row pgx.Row) (*Run, error) {
	r := &Run{}
	err := row.Scan(&r.RunID, &r.Command, &r.GitBranch, &r.GitCommit, &r.CI, &r.Status, &r.ExitCode, &r.StartedAt, &r.EndedAt,
		&r.DurationMs, &r.Tasks, &r.Failed, &r.Hits, &r.LocalHits, &r.RemoteHits, &r.Executed)
	return r, err
}

// ListRunsInput selects list_runs.
type ListRunsInput struct {
	Scope
	Limit *opkit.Limit `json:"limit,omitempty" jsonschema:"runs, 1..500 (default 50), clamped"`
}

// RunsOutput answers list_runs.
type RunsOutput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Limit     int          `json:"limit"`
	Note      string       `json:"note,omitempty"`
	Runs      []Run        `json:"runs"`
}

// ListRuns answers list_runs: the workspace's runs, newest first.
func (e *Env) ListRuns(ctx context.Context, p *tokens.Principal, in ListRunsInput) (*RunsOutput, error) {
	ws, err := e.workspace(ctx, p, in.Scope)
	if err != nil {
		return nil, err
	}
	limit, note := clamp(in.Limit, runsDefault, 1, runsMax)
	rows, err := e.Pool.Query(ctx, `SELECT `+runCols+` FROM runs WHERE org_id = $1 AND workspace_id = $2
		ORDER BY started_at DESC, id DESC LIMIT $3`, p.OrgID, ws.ID, limit)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	defer rows.Close()
	out := &RunsOutput{Workspace: *ws, Limit: limit, Note: note, Runs: []Run{}}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("listing runs: %w", err)
		}
		out.Runs = append(out.Runs, *r)
	}
	return out, rows.Err()
}

// resolveRun finds a run of the workspace by id or unique prefix; nil
// when there is none.
func (e *Env) resolveRun(ctx context.Context, org int64, ws, id string) (*Run, error) {
	r, err := scanRun(e.Pool.QueryRow(ctx, `SELECT `+runCols+` FROM runs WHERE org_id = $1 AND workspace_id = $2 AND id = $3`, org, ws, id))
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("reading run %s: %w", id, err)
	}
	// Run ids are lowercase hex, so every id with this prefix sorts in
	// [prefix, prefix+"g").
	if strings.Trim(id, "0123456789abcdef") != "" {
		return nil, nil
	}
	rows, err := e.Pool.Query(ctx, `SELECT id FROM runs WHERE org_id = $1 AND workspace_id = $2 AND id >= $3 AND id < $3 || 'g' ORDER BY id LIMIT 10`, org, ws, id)
	if err != nil {
		return nil, fmt.Errorf("reading run %s: %w", id, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reading run %s: %w", id, err)
	}
	switch len(ids) {
	case 0:
		return nil, nil
	case 1:
		return e.resolveRun(ctx, org, ws, ids[0])
	}
	return nil, argErr("runId", "prefix %q matches several runs (%s); give more characters", id, strings.Join(ids, ", "))
}

// previousRun is the workspace's run started just before r.
func (e *Env) previousRun(ctx context.Context, org int64, ws string, r *Run) (*Run, error) {
	prev, err := scanRun(e.Pool.QueryRow(ctx, `SELECT `+runCols+` FROM runs WHERE org_id = $1 AND workspace_id = $2
		AND (started_at, id) < ($3, $4) ORDER BY started_at DESC, id DESC LIMIT 1`, org, ws, r.StartedAt, r.RunID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the run before %s: %w", r.RunID, err)
	}
	return prev, nil
}

// Task is one task's outcome in a run.
type Task struct {
	TaskID         string     `json:"taskId"`
	Project        string     `json:"project"`
	Task           string     `json:"task"`
	Key            string     `json:"key"`
	Status         string     `json:"status"`
	Cache          string     `json:"cache"`
	CacheSource    string     `json:"cacheSource,omitempty"`
	ExitCode       *int       `json:"exitCode"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	DurationMs     int64      `json:"durationMs"`
	PeakRSSBytes   int64      `json:"peakRssBytes"`
	CPUParallelism float64    `json:"cpuParallelism"`
	Reason         string     `json:"reason,omitempty"`
	BlockedBy      []string   `json:"blockedBy,omitempty"`
	TimedOut       bool       `json:"timedOut"`
	// Failure says why a failed task failed, as vx pushed it (masked).
	Failure *wire.PushFailure `json:"failure,omitempty"`
}

const taskCols = `task_id, project, task, key, status, cache, cache_source, exit_code, started_at, duration_ms, peak_rss_bytes, cpu_parallelism, reason, blocked_by, timed_out, failure`

func scanTask(row pgx.Row) (*Task, error) {
	t := &Task{}
	var failure []byte
	err := row.Scan(&t.TaskID, &t.Project, &t.Task, &t.Key, &t.Status, &t.Cache, &t.CacheSource, &t.ExitCode, &t.StartedAt,
		&t.DurationMs, &t.PeakRSSBytes, &t.CPUParallelism, &t.Reason, &t.BlockedBy, &t.TimedOut, &failure)
	if len(t.BlockedBy) == 0 {
		t.BlockedBy = nil
	}
	if err == nil && len(failure) > 0 {
		t.Failure = &wire.PushFailure{}
		if jerr := json.Unmarshal(failure, t.Failure); jerr != nil {
			return nil, fmt.Errorf("task %s: its stored failure does not decode: %w", t.TaskID, jerr)
		}
	}
	return t, err
}

// taskRowBytes is about what one Task adds to an answer beside its
// strings: its keys, numbers and punctuation, as structuredContent and
// again escaped as text.
const taskRowBytes = 2*230 + 40

// tasks reads the tasks of a run; with room >= 0 it stops with an error
// wrapping mcpserver.ErrTooLarge once their answer would take more than
// room bytes, rather than read on what cannot be sent.
func (e *Env) tasks(ctx context.Context, org int64, ws, runID string, room int) ([]Task, error) {
	rows, err := e.Pool.Query(ctx, `SELECT `+taskCols+` FROM executions WHERE org_id = $1 AND workspace_id = $2 AND run_id = $3
		ORDER BY started_at NULLS LAST, task_id`, org, ws, runID)
	if err != nil {
		return nil, fmt.Errorf("reading the tasks of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := []Task{}
	size := 0
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("reading the tasks of run %s: %w", runID, err)
		}
		out = append(out, *t)
		if room >= 0 {
			if size += t.answerBytes(); size > room {
				return nil, fmt.Errorf("%w: the tasks of run %s take more than the %d bytes left for this body's answers (%d tasks read so far); ask for this run alone, in a request of its own",
					mcpserver.ErrTooLarge, runID, room, len(out))
			}
		}
	}
	return out, rows.Err()
}

// answerBytes is about what t adds to an answer (see taskRowBytes).
func (t *Task) answerBytes() int {
	n := taskRowBytes + 2*(len(t.TaskID)+len(t.Project)+len(t.Task)+len(t.Key)+len(t.Status)+len(t.Cache)+len(t.CacheSource)+len(t.Reason))
	for _, b := range t.BlockedBy {
		n += 2 * (len(b) + 3)
	}
	if f := t.Failure; f != nil {
		// Escaped output can double; the locations' keys and numbers ~80.
		n += 2 * 2 * len(f.Excerpt)
		for _, l := range f.Locations {
			n += 2 * (len(l.File) + len(l.Message) + len(l.Tool) + 80)
		}
	}
	return n
}

// RunInput names a run.
type RunInput struct {
	Scope
	RunID opkit.RunID `json:"runId" jsonschema:"a vx run id (as vx last --list prints it) or a unique prefix"`
}

// RunOutput answers get_run.
type RunOutput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Found     bool         `json:"found"`
	Run       *Run         `json:"run,omitempty"`
	Tasks     []Task       `json:"tasks"`
}

// GetRun answers get_run: the header and every task; found is false for
// an id the workspace does not have.
func (e *Env) GetRun(ctx context.Context, p *tokens.Principal, in RunInput) (*RunOutput, error) {
	ws, err := e.workspace(ctx, p, in.Scope)
	if err != nil {
		return nil, err
	}
	out := &RunOutput{Workspace: *ws, Tasks: []Task{}}
	r, err := e.resolveRun(ctx, p.OrgID, ws.ID, string(in.RunID))
	if err != nil || r == nil {
		return out, err
	}
	out.Found, out.Run = true, r
	room, bounded := mcpserver.AnswerRoom(ctx)
	if !bounded {
		room = -1
	}
	out.Tasks, err = e.tasks(ctx, p.OrgID, ws.ID, r.RunID, room)
	return out, err
}
