package ops

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// WhyInput names the execution to explain.
type WhyInput struct {
	TaskID opkit.TaskID `json:"taskId" jsonschema:"a task id, project#task (e.g. web#build)" pos:"task"`
	RunID  *opkit.RunID `json:"runId,omitempty" jsonschema:"a run id or a unique prefix (vx last --list prints them)" flag:"run" arg:"ID" help:"the run (id or unique prefix; default: the task's latest)"`
}

// WhyRoot is an upstream task whose own inputs moved.
type WhyRoot struct {
	TaskID string        `json:"taskId"`
	Diff   *taskkey.Diff `json:"diff"`
}

// WhyOutput compares an execution's key with the previous execution's.
type WhyOutput struct {
	TaskID        string        `json:"taskId"`
	RunID         string        `json:"runId"`
	Key           string        `json:"key"`
	Status        string        `json:"status"`
	Cache         string        `json:"cache"`
	CacheSource   string        `json:"cacheSource,omitempty"`
	Reran         bool          `json:"reran"` // the command executed (not a cache hit)
	PreviousRunID string        `json:"previousRunId,omitempty"`
	PreviousKey   string        `json:"previousKey,omitempty"`
	Changed       bool          `json:"changed"`
	FirstRun      bool          `json:"firstRun"`
	Diff          *taskkey.Diff `json:"diff,omitempty"`
	Roots         []WhyRoot     `json:"roots"`
	Summary       string        `json:"summary"`
}

// Why answers `vx why TASK [--run ID]` and whyDidThisRerun.
func Why(ctx context.Context, e *Env, in WhyInput) (*WhyOutput, error) {
	out, err := why(ctx, e, in)
	if err == nil && out.CacheSource == wire.CacheSourceRemote {
		out.Summary += "; the entry came from the remote cache (built elsewhere with this same key)"
	}
	return out, err
}

func why(ctx context.Context, e *Env, in WhyInput) (*WhyOutput, error) {
	h, ex, err := e.taskExecution(ctx, in.TaskID, in.RunID)
	if err != nil {
		return nil, err
	}
	run, err := h.ResolveRun(ctx, ex.RunID)
	if err != nil {
		return nil, err
	}
	out := &WhyOutput{TaskID: ex.TaskID, RunID: ex.RunID, Key: ex.Key, Status: ex.Status, Cache: ex.Cache, CacheSource: ex.CacheSource, Roots: []WhyRoot{},
		Reran: ex.Cache != "hit" && (ex.Status == "passed" || ex.Status == "failed" || ex.Status == "timedOut" || ex.Status == "interrupted")}
	prev, err := h.PreviousExecution(ctx, ex.TaskID, run.Seq)
	if errors.Is(err, history.ErrNotFound) {
		out.FirstRun, out.Changed = true, true
		out.Summary = fmt.Sprintf("%s has no earlier execution in this workspace's history: run %s was its first", ex.TaskID, ex.RunID)
		return out, nil
	} else if err != nil {
		return nil, err
	}
	out.PreviousRunID, out.PreviousKey = prev.RunID, prev.Key
	out.Changed = prev.Key != ex.Key
	if !out.Changed {
		switch {
		case ex.Cache == "hit":
			out.Summary = "the key did not change, and the task was restored from the cache"
		case ex.Cache == "off":
			out.Summary = "the key did not change; the task is not cached (cache: false), so it runs every time"
		case prev.Status == history.StatusPassed && strings.HasPrefix(prev.Reason, "passed, not cached"):
			out.Summary = fmt.Sprintf("the key did not change; the task ran because its previous execution (run %s) %s", prev.RunID, prev.Reason)
		default:
			out.Summary = "the key did not change; the task ran because the cache had no usable entry (pruned, replaced, --force, or the previous execution failed)"
		}
		return out, nil
	}
	cur, err := loadComponents(ctx, h, ex.Key)
	if err != nil {
		return nil, err
	}
	old, err := loadComponents(ctx, h, prev.Key)
	if err != nil {
		return nil, err
	}
	if cur == nil || old == nil {
		out.Summary = "the key changed, but the history holds no key components for one of the two executions"
		return out, nil
	}
	out.Diff = taskkey.Compare(old, cur)
	if out.Roots = findRoots(ctx, h, old, cur, map[string]bool{}); out.Roots == nil {
		out.Roots = []WhyRoot{}
	}
	// Histories written before components were masked hold clear values.
	maskDiff(e, out.Diff)
	for _, r := range out.Roots {
		maskDiff(e, r.Diff)
	}
	out.Summary = summarize(out.Diff, out.Roots)
	return out, nil
}

func loadComponents(ctx context.Context, h *history.Store, key string) (*taskkey.Components, error) {
	if key == "" {
		return nil, nil
	}
	b, err := h.Components(ctx, key)
	if errors.Is(err, history.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return taskkey.Decode(b)
}

// findRoots follows moved upstream keys down to the tasks whose own
// inputs moved.
func findRoots(ctx context.Context, h *history.Store, old, cur *taskkey.Components, seen map[string]bool) []WhyRoot {
	var roots []WhyRoot
	moved := diffChanged(old.Deps, cur.Deps)
	sort.Strings(moved)
	for _, id := range moved {
		if seen[id] {
			continue
		}
		seen[id] = true
		a, _ := loadComponents(ctx, h, old.Deps[id])
		b, _ := loadComponents(ctx, h, cur.Deps[id])
		if a == nil || b == nil {
			roots = append(roots, WhyRoot{TaskID: id})
			continue
		}
		d := taskkey.Compare(a, b)
		if d.OwnInputsMoved() {
			roots = append(roots, WhyRoot{TaskID: id, Diff: d})
		}
		roots = append(roots, findRoots(ctx, h, a, b, seen)...)
	}
	return roots
}

func diffChanged(a, b map[string]string) []string {
	var out []string
	for k, v := range b {
		if old, ok := a[k]; ok && old != v {
			out = append(out, k)
		}
	}
	return out
}

func summarize(d *taskkey.Diff, roots []WhyRoot) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	if d.Runner != nil {
		parts = append(parts, "the vx version changed")
	}
	add(len(d.Files.Changed), "file(s) changed")
	add(len(d.Files.Added), "file(s) added")
	add(len(d.Files.Removed), "file(s) removed")
	add(len(d.Global.Changed)+len(d.Global.Added)+len(d.Global.Removed), "global input(s) moved")
	add(len(d.Env.Changed)+len(d.Env.Added)+len(d.Env.Removed), "env var(s) changed")
	add(len(d.Definition), "definition field(s) changed")
	add(len(d.Upstream.Changed)+len(d.Upstream.Added)+len(d.Upstream.Removed), "upstream task key(s) moved")
	s := "the key changed: "
	if len(parts) == 0 {
		s += "no component differs (the key format changed)"
	}
	for i, p := range parts {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	if len(roots) > 0 {
		s += "; root cause upstream: "
		for i, r := range roots {
			if i > 0 {
				s += ", "
			}
			s += r.TaskID
		}
	}
	return s
}

// maskDiff masks the definition values a diff shows.
func maskDiff(e *Env, d *taskkey.Diff) {
	if d == nil {
		return
	}
	for i := range d.Definition {
		d.Definition[i].Before = e.Masker.String(d.Definition[i].Before)
		d.Definition[i].After = e.Masker.String(d.Definition[i].After)
	}
}
