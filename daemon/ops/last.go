package ops

import (
	"context"
	"errors"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/failures"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

// RunsInput narrows Runs.
type RunsInput struct {
	Limit *opkit.Limit `json:"limit,omitempty" jsonschema:"runs, 1..500 (default 20), clamped" flag:"limit" arg:"N" help:"with --list: how many runs (1..500, default 20)"`
}

// RunsOutput lists recent runs, newest first.
type RunsOutput struct {
	Runs  []history.Run `json:"runs"`
	Limit int           `json:"limit"`
	Note  string        `json:"note,omitempty"`
}

// Runs answers `vx last --list`.
func Runs(ctx context.Context, e *Env, in RunsInput) (*RunsOutput, error) {
	limit, note := clamp(in.Limit, 20, 1, 500)
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	runs, err := h.ListRuns(ctx, limit, 0)
	if err != nil {
		return nil, err
	}
	if runs == nil {
		runs = []history.Run{}
	}
	return &RunsOutput{Runs: runs, Limit: limit, Note: note}, nil
}

// RunInput selects one run ("" = the latest).
type RunInput struct {
	RunID *opkit.RunID `json:"runId,omitempty" jsonschema:"a run id or a unique prefix (vx last --list prints them)" flag:"run" arg:"ID" help:"a run id or unique prefix (default: the latest run)"`
	// Violations keeps only the tasks with sandbox violations.
	Violations bool `json:"violations,omitempty" jsonschema:"true: only tasks that wrote or connected outside their sandbox, with what they did" flag:"violations" help:"only tasks outside their sandbox"`
}

// RunOutput is one run with every task's outcome.
type RunOutput struct {
	Found bool                `json:"found"`
	Run   *history.Run        `json:"run"`
	Tasks []history.Execution `json:"tasks"`
	Note  string              `json:"note,omitempty"`
}

// Run answers `vx last [--run ID]`.
func Run(ctx context.Context, e *Env, in RunInput) (*RunOutput, error) {
	h, err := e.History(ctx)
	if err != nil {
		return nil, err
	}
	r, found, err := pickRun(ctx, h, in.RunID, h.LatestRun)
	if err != nil {
		return nil, err
	}
	if !found {
		return &RunOutput{Tasks: []history.Execution{}, Note: "no run recorded in this workspace yet: `vx run TASK` records one"}, nil
	}
	ex, err := h.Executions(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	out := &RunOutput{Found: true, Run: r, Tasks: ex}
	if in.Violations {
		out.Tasks = withViolations(ex)
		if len(out.Tasks) == 0 {
			out.Note = "no task of run " + r.ID + " wrote or connected outside its sandbox (a task restored from the cache did not run, and records none)"
		}
	}
	if out.Tasks == nil {
		out.Tasks = []history.Execution{}
	}
	return out, nil
}

// withViolations keeps the executions that recorded sandbox violations.
func withViolations(ex []history.Execution) []history.Execution {
	kept := []history.Execution{}
	for _, x := range ex {
		if len(x.SandboxViolations) > 0 {
			kept = append(kept, x)
		}
	}
	return kept
}

// TaskLogInput selects a task's log.
type TaskLogInput struct {
	TaskID opkit.TaskID `json:"taskId" jsonschema:"a task id, project#task (e.g. web#build)" flag:"log" arg:"TASK" help:"print a task's log (project#task)"`
	RunID  *opkit.RunID `json:"runId,omitempty" jsonschema:"a run id or a unique prefix (vx last --list prints them)" flag:"run" arg:"ID" help:"a run id or unique prefix (default: the latest run)"`
}

// TaskLogOutput is what a task printed, and where vx kept it.
type TaskLogOutput struct {
	RunID     string  `json:"runId"`
	TaskID    string  `json:"taskId"`
	Status    string  `json:"status"`
	Cache     string  `json:"cache"`
	Source    *string `json:"source"` // "failure", "cache", or null when nothing was kept
	Output    string  `json:"output"`
	Truncated bool    `json:"truncated"`
	Note      string  `json:"note,omitempty"`
}

// TaskLog answers `vx last --log TASK` and getTaskLog.
func TaskLog(ctx context.Context, e *Env, in TaskLogInput) (*TaskLogOutput, error) {
	_, ex, err := e.taskExecution(ctx, in.TaskID, in.RunID)
	if err != nil {
		return nil, err
	}
	out := &TaskLogOutput{RunID: ex.RunID, TaskID: ex.TaskID, Status: ex.Status, Cache: ex.Cache}
	src := func(s string) *string { return &s }
	switch {
	case len(ex.Output) > 0:
		out.Source, out.Output, out.Truncated = src("failure"), e.Masker.String(string(ex.Output)), ex.OutputTruncated
	case ex.Key != "" && ex.Cache != "off" && ex.Status == "passed":
		c, err := e.Cache()
		if err != nil {
			return nil, err
		}
		hit, err := c.Get(ex.Key)
		switch {
		case err == nil:
			log, err := hit.Log()
			if err != nil {
				out.Note = "the cache entry's log could not be read: " + err.Error()
				break
			}
			text, truncated := failures.Excerpt(log)
			out.Source, out.Output, out.Truncated = src("cache"), e.Masker.String(text), truncated
		case errors.Is(err, cache.ErrMiss):
			out.Note = "the cache entry for this execution is gone (pruned or replaced); vx keeps no other copy of a passing task's output"
		default:
			out.Note = "the cache entry for this execution is unreadable: " + err.Error()
		}
	default:
		out.Note = "vx keeps no output for this execution (" + ex.Status + ", cache " + ex.Cache + ")"
	}
	return out, nil
}

// taskHint suggests known task ids for a task id with no history.
func (e *Env) taskHint(id string) string {
	m, err := e.CurrentModel()
	if err != nil {
		return ""
	}
	p, t, _ := workspace.SplitTaskID(id)
	if p != workspace.RootProject {
		if _, ok := m.Project(p); !ok {
			return "; no project is named " + p + workspace.CloseHint(p, projectNames(m))
		}
	}
	if _, ok := m.Resolve(p, t); !ok {
		return "; project " + p + " has no task " + t
	}
	return ""
}

// clamp bounds n to [lo, hi] (def when not given) and says when it did.
func clamp(l *opkit.Limit, def, lo, hi int) (int, string) {
	n, given := limit(l)
	switch {
	case !given:
		return def, ""
	case n < lo:
		return lo, "limit raised to the minimum"
	case n > hi:
		return hi, "limit clamped to the maximum"
	}
	return n, ""
}
