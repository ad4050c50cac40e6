package teamops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// WhyInput names the task execution to explain.
type WhyInput struct {
	Scope
	RunID  opkit.RunID  `json:"runId" jsonschema:"a vx run id (as vx last --list prints it) or a unique prefix"`
	TaskID opkit.TaskID `json:"taskId" jsonschema:"a task id, project#task (e.g. web#build)"`
}

// WhyOutput answers why_did_rerun.
type WhyOutput struct {
	Workspace     WorkspaceRef  `json:"workspace"`
	Found         bool          `json:"found"`
	RunID         string        `json:"runId"`
	TaskID        string        `json:"taskId"`
	Key           string        `json:"key,omitempty"`
	Status        string        `json:"status,omitempty"`
	Cache         string        `json:"cache,omitempty"`
	Reran         bool          `json:"reran"` // the command executed (not a hit)
	PreviousRunID string        `json:"previousRunId,omitempty"`
	PreviousKey   string        `json:"previousKey,omitempty"`
	FirstRun      bool          `json:"firstRun"`
	Changed       bool          `json:"changed"`
	Diff          *taskkey.Diff `json:"diff,omitempty"`
	Summary       string        `json:"summary"`
}

// WhyDidRerun answers why_did_rerun: the task's key in the run against
// its previous execution in the workspace, and the per-component diff of
// the two keys' components as vx pushed them.
func (e *Env) WhyDidRerun(ctx context.Context, p *tokens.Principal, in WhyInput) (*WhyOutput, error) {
	ws, err := e.workspace(ctx, p, in.Scope)
	if err != nil {
		return nil, err
	}
	out := &WhyOutput{Workspace: *ws, RunID: string(in.RunID), TaskID: string(in.TaskID)}
	run, err := e.resolveRun(ctx, p.OrgID, ws.ID, string(in.RunID))
	if err != nil {
		return nil, err
	}
	if run == nil {
		out.Summary = fmt.Sprintf("workspace %s has no run %q", ws.Slug, string(in.RunID))
		return out, nil
	}
	out.RunID = run.RunID
	cur, err := scanTask(e.Pool.QueryRow(ctx, `SELECT `+taskCols+` FROM executions WHERE org_id = $1 AND workspace_id = $2 AND run_id = $3 AND task_id = $4`,
		p.OrgID, ws.ID, run.RunID, string(in.TaskID)))
	if errors.Is(err, pgx.ErrNoRows) {
		out.Summary = fmt.Sprintf("run %s did not include %s", run.RunID, string(in.TaskID))
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s in run %s: %w", string(in.TaskID), run.RunID, err)
	}
	out.Found, out.Key, out.Status, out.Cache = true, cur.Key, cur.Status, cur.Cache
	out.Reran = cur.Cache != "hit" && (cur.Status == "passed" || cur.Status == "failed" || cur.Status == "timedOut")
	var prevRun, prevKey string
	err = e.Pool.QueryRow(ctx, `SELECT run_id, key FROM executions WHERE org_id = $1 AND workspace_id = $2 AND task_id = $3
		AND (run_started_at, run_id) < ($4, $5) AND key <> '' ORDER BY run_started_at DESC, run_id DESC LIMIT 1`,
		p.OrgID, ws.ID, string(in.TaskID), run.StartedAt, run.RunID).Scan(&prevRun, &prevKey)
	if errors.Is(err, pgx.ErrNoRows) {
		out.FirstRun = true
		out.Summary = fmt.Sprintf("%s has no earlier execution in workspace %s: this is its first recorded run", string(in.TaskID), ws.Slug)
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the previous execution of %s: %w", string(in.TaskID), err)
	}
	out.PreviousRunID, out.PreviousKey = prevRun, prevKey
	out.Changed = prevKey != cur.Key
	if !out.Changed {
		out.Summary = whyUnchanged(out)
		return out, nil
	}
	before, err1 := e.components(ctx, p.OrgID, ws.ID, prevKey)
	after, err2 := e.components(ctx, p.OrgID, ws.ID, cur.Key)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if before == nil || after == nil {
		out.Summary = fmt.Sprintf("the key changed (%s → %s), but vx did not push the components of both keys, so the inputs cannot be compared", short(prevKey), short(cur.Key))
		return out, nil
	}
	out.Diff = taskkey.Compare(before, after)
	out.Summary = summarize(out.Diff)
	return out, nil
}

func whyUnchanged(o *WhyOutput) string {
	if o.Reran {
		return fmt.Sprintf("the key is the same as in run %s; it executed anyway (no cache entry was available, or caching is off)", o.PreviousRunID)
	}
	return fmt.Sprintf("the key is the same as in run %s", o.PreviousRunID)
}

func (e *Env) components(ctx context.Context, org int64, ws, key string) (*taskkey.Components, error) {
	var body []byte
	err := e.Pool.QueryRow(ctx, `SELECT body FROM components WHERE org_id = $1 AND workspace_id = $2 AND key = $3`, org, ws, key).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the components of key %s: %w", key, err)
	}
	var c taskkey.Components
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("decoding the components of key %s: %w", key, err)
	}
	return &c, nil
}

func short(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}

func summarize(d *taskkey.Diff) string {
	var parts []string
	add := func(what string, s taskkey.SetDiff) {
		if n := len(s.Added) + len(s.Removed) + len(s.Changed); n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d added, %d removed, %d changed", what, len(s.Added), len(s.Removed), len(s.Changed)))
		}
	}
	if d.Runner != nil {
		parts = append(parts, "the vx version changed")
	}
	add("files", d.Files)
	add("global inputs", d.Global)
	add("env", d.Env)
	if len(d.Definition) > 0 {
		names := make([]string, len(d.Definition))
		for i, c := range d.Definition {
			names[i] = c.Name
		}
		parts = append(parts, "definition: "+strings.Join(names, ", "))
	}
	add("upstream keys", d.Upstream)
	if len(parts) == 0 {
		return "the key changed but no component differs"
	}
	return "the key changed — " + strings.Join(parts, "; ")
}

// CompareOutput answers compare_runs.
type CompareOutput struct {
	Workspace     WorkspaceRef       `json:"workspace"`
	Found         bool               `json:"found"`
	RunID         string             `json:"runId"`
	PreviousRunID string             `json:"previousRunId,omitempty"`
	Tasks         []wire.TaskDelta   `json:"tasks"`
	Totals        wire.CompareTotals `json:"totals"`
	Note          string             `json:"note,omitempty"`
}

// CompareRuns answers compare_runs: the run against the workspace's
// immediately previous one, per task and in total.
func (e *Env) CompareRuns(ctx context.Context, p *tokens.Principal, in RunInput) (*CompareOutput, error) {
	ws, err := e.workspace(ctx, p, in.Scope)
	if err != nil {
		return nil, err
	}
	out := &CompareOutput{Workspace: *ws, RunID: string(in.RunID), Tasks: []wire.TaskDelta{}}
	run, err := e.resolveRun(ctx, p.OrgID, ws.ID, string(in.RunID))
	if err != nil {
		return nil, err
	}
	if run == nil {
		out.Note = fmt.Sprintf("workspace %s has no run %q", ws.Slug, string(in.RunID))
		return out, nil
	}
	out.Found, out.RunID = true, run.RunID
	prev, err := e.previousRun(ctx, p.OrgID, ws.ID, run)
	if err != nil {
		return nil, err
	}
	if prev == nil {
		out.Note = "run " + run.RunID + " is the workspace's first run: nothing to compare with"
		return out, nil
	}
	out.PreviousRunID = prev.RunID
	after, err := e.tasks(ctx, p.OrgID, ws.ID, run.RunID, -1)
	if err != nil {
		return nil, err
	}
	before, err := e.tasks(ctx, p.OrgID, ws.ID, prev.RunID, -1)
	if err != nil {
		return nil, err
	}
	out.Tasks, out.Totals = deltas(before, after, prev.DurationMs, run.DurationMs)
	return out, nil
}

// deltas compares two runs' tasks with vxd's own comparison, in task id
// order; wallBefore and wallAfter are the runs' wall times.
func deltas(before, after []Task, wallBefore, wallAfter int64) ([]wire.TaskDelta, wire.CompareTotals) {
	out, t := wire.Deltas(outcomes(before), outcomes(after), wallBefore, wallAfter)
	sort.SliceStable(out, func(i, j int) bool { return out[i].TaskID < out[j].TaskID })
	return out, t
}

func outcomes(ts []Task) []wire.TaskOutcome {
	out := make([]wire.TaskOutcome, len(ts))
	for i, x := range ts {
		out[i] = wire.TaskOutcome{TaskID: x.TaskID, Status: x.Status, Cache: x.Cache, Key: x.Key, DurationMs: x.DurationMs}
	}
	return out
}
