// Package tools is vxd's MCP catalog: every tool, resource and prompt the
// daemon serves, each a thin adapter that checks its arguments (never
// coercing them) and calls one operation of package ops.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/wire"
)

// Config is what the catalog needs beyond the operations' Env.
type Config struct {
	VX string // the vx executable runTasks and planTasks start
	// Extra are tools added by other packages (init, lock, docs).
	Extra []Def
	// Plans, when set, keeps planTasks' plans for runTasks {planId}
	// (plan.go); without it planTasks only plans.
	Plans *plans.Store
	// OnEvent receives runTasks' run events (for the live feed).
	OnEvent func(wire.Event)
}

// Values is a tool's checked arguments.

// Def is one tool: its arguments, output type and handler.
type Def struct {
	Name        string
	Title       string
	Description string
	Args        []Arg
	Output      any // a value of the output type, for the outputSchema
	ReadOnly    bool
	Destructive bool
	// Model says when an answer depends only on the workspace model and
	// the arguments: such answers are kept, encoded, until a reload.
	Model func(v Values) bool
	Run   func(ctx context.Context, call *mcpserver.Call, v Values) (any, error)
	env   *ops.Env
}

func (d Def) tool() mcpserver.Tool {
	ann := &mcp.ToolAnnotations{Title: d.Title, ReadOnlyHint: mcp.Bool(d.ReadOnly), OpenWorldHint: mcp.Bool(false)}
	if !d.ReadOnly {
		ann.DestructiveHint = mcp.Bool(d.Destructive)
	}
	def := mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: schema(d.Args), OutputSchema: outputSchema(d.Output), Annotations: ann}
	args := d.Args
	run := d.Run
	var memo *answerMemo
	if d.Model != nil && d.env != nil {
		memo = &answerMemo{env: d.env}
	}
	return mcpserver.Tool{Def: def, Handler: func(ctx context.Context, call *mcpserver.Call) (any, error) {
		if memo != nil {
			// Kept answers were computed from these very arguments after
			// they passed check (with this catalog, on this model).
			if enc, ok := memo.get(call.Arguments); ok {
				return enc, nil
			}
		}
		v, err := check(call.Arguments, args)
		if err != nil {
			return nil, err
		}
		keep := memo != nil && d.Model(v)
		out, err := run(ctx, call, v)
		if err != nil {
			return nil, refusal(err)
		}
		if keep {
			return memo.put(call.Arguments, out)
		}
		return out, nil
	}}
}

func always(Values) bool { return true }

// answerMemo keeps encoded answers of one model-only tool, by arguments,
// for as long as the model they were computed from is current. It keeps
// them masked (the env's masker is the one vxd's MCP server masks with),
// and hands them to the server as mcpserver.Masked, so that a hit costs no
// masking pass; an answer kept before the masker learnt more values is
// masked again on its next hit.
type answerMemo struct {
	env   *ops.Env
	mu    sync.Mutex
	model *workspace.Model
	m     map[string]memoAnswer
	bytes int // of the kept answers and their keys
}

// memoAnswer is a kept answer, masked at the masker's generation gen.
type memoAnswer struct {
	b   mcpserver.Masked
	gen uint64
}

// A memo keeps at most memoEntries answers and memoBytes of them, so that
// however many different arguments a client sends (a thousand filters
// each naming most of a 1,000-project workspace: 180 KB answers) the memo
// stays a few MiB of vxd's RSS.
const (
	memoEntries = 256
	memoBytes   = 4 << 20
)

func (a *answerMemo) get(args json.RawMessage) (any, bool) {
	m, err := a.env.CurrentModel()
	if err != nil {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model != m {
		a.model, a.m, a.bytes = m, map[string]memoAnswer{}, 0
	}
	e, ok := a.m[string(args)]
	if !ok {
		return nil, false
	}
	if g := a.env.Masker.Generation(); g != e.gen {
		old := len(e.b)
		e = memoAnswer{mcpserver.Masked(a.env.Masker.JSON(e.b)), g}
		a.m[string(args)] = e
		a.bytes += len(e.b) - old
	}
	return e.b, true
}

func (a *answerMemo) put(args json.RawMessage, out any) (any, error) {
	enc, err := mcpserver.EncodeResult(out)
	if err != nil {
		return out, nil
	}
	gen := a.env.Masker.Generation() // before masking: a value added meanwhile masks it again
	e := memoAnswer{mcpserver.Masked(a.env.Masker.JSON(enc)), gen}
	m, _ := a.env.CurrentModel()
	a.mu.Lock()
	defer a.mu.Unlock()
	size := len(args) + len(e.b)
	if _, kept := a.m[string(args)]; a.model == m && !kept && size <= memoBytes {
		// Full: kept answers (whichever the map yields) make room, so
		// that the arguments asked now, a batch repeating them included,
		// share one copy rather than each computing its own.
		for k, old := range a.m {
			if len(a.m) < memoEntries && a.bytes+size <= memoBytes {
				break
			}
			delete(a.m, k)
			a.bytes -= len(k) + len(old.b)
		}
		a.m[string(args)] = e
		a.bytes += size
	}
	return e.b, nil
}

// refusal renders an operation's error as the one line an agent reads.
func refusal(err error) error {
	var ae *ops.ArgError
	if errors.As(err, &ae) {
		return fmt.Errorf("argument %q: %s", ae.Arg, ae.Msg)
	}
	return err
}

var (
	filterArg   = Arg{Name: "filter", Kind: KindFilter, Desc: "projects to include, as vx run --filter: a name or glob, tag:NAME, or ./path/glob (a string or an array)"}
	affectedArg = Arg{Name: "affected", Kind: KindBoolOrRef, Desc: "true: only projects changed against the default branch's merge base, plus dependents; or a git ref to compare against"}
	taskIDArg   = Arg{Name: "taskId", Kind: KindTaskID, Required: true, Desc: "a task id, project#task (e.g. web#build)"}
	runIDArg    = Arg{Name: "runId", Kind: KindRunID, Desc: "a run id or a unique prefix (vx last --list prints them)"}
)

func affected(v Values) (bool, string) {
	switch x := v["affected"].(type) {
	case bool:
		return x, ""
	case string:
		return true, x
	}
	return false, ""
}

// Catalog lists every tool for the env's current configuration: runTasks
// is absent when mcp.run is false.
func Catalog(e *ops.Env, cfg Config) []mcpserver.Tool {
	var defs []Def
	defs = append(defs,
		Def{Name: "listTasks", Title: "List tasks", ReadOnly: true, Output: &ops.ShowOutput{},
			Model:       func(v Values) bool { return !v.Has("affected") }, // affected reads git
			Description: "What can I run here? Every project, its tags, and the tasks a run would see (command, dependsOn, cache), resolved as vx run resolves them; secret Values read ***. project narrows to one project; filter and affected narrow as vx show --filter / --affected.",
			Args:        []Arg{{Name: "project", Kind: KindString, Desc: "one project's name"}, filterArg, affectedArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				aff, ref := affected(v)
				return ops.Show(ctx, e, ops.ShowInput{Project: v.Str("project"), Filters: v.Strings("filter"), Affected: aff, AffectedRef: ref})
			}},
		Def{Name: "getConfig", Title: "Get task configuration", ReadOnly: true, Model: always, Output: &ops.ShowOutput{},
			Description: "What does this task declare? vx show TARGET --format json: resolved inputs, outputs, env, dependsOn, cache and timeout, secrets masked. target is a project, project#task, or a task name.",
			Args:        []Arg{{Name: "target", Kind: KindString, Required: true, Desc: "a project, project#task, or a task name"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.Show(ctx, e, ops.ShowInput{Target: v.Str("target")})
			}},
		Def{Name: "getCacheStats", Title: "Cache statistics", ReadOnly: true, Output: &ops.CacheStatsOutput{},
			Description: "What's the state of my cache? Entries, total size, runs and hits in the last 24h (split local/remote), hit rate, and the remote cache if one is configured. scope.project narrows every number to one project; checkRemote also asks the remote cache server.",
			Args: []Arg{{Name: "scope", Kind: KindObject, Desc: "narrow the numbers", Props: []Arg{{Name: "project", Kind: KindString, Desc: "a project name"}}},
				{Name: "checkRemote", Kind: KindBool, Desc: "also ask the remote cache server: reachable, authorized, enabled, round-trip time"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.CacheStats(ctx, e, ops.CacheStatsInput{Project: v.Object("scope").Str("project"), CheckRemote: v.Bool("checkRemote")})
			}},
		Def{Name: "getRunHistory", Title: "Run history", ReadOnly: true, Output: &ops.RunHistoryOutput{},
			Description: "Which tasks have I been running, and how fast? Recent executions (exit code, blockedBy, timedOut, reason) plus per-task p50/p99, success rate, hit rate, failure mode, flaky (only when one cache key both passed and failed), maxPeakRssBytes and maxCpuParallelism. limit 1..500 is clamped and the answer says the limit applied.",
			Args: []Arg{{Name: "project", Kind: KindString, Desc: "a project name"}, {Name: "task", Kind: KindString, Desc: "a task name such as build (not project#task)"},
				{Name: "limit", Kind: KindLimit, Desc: "recent rows, 1..500 (default 50), clamped"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.RunHistory(ctx, e, ops.RunHistoryInput{Project: v.Str("project"), Task: v.Str("task"), Limit: v.Limit("limit"), LimitSet: v.Has("limit")})
			}},
		Def{Name: "explainCacheKey", Title: "Explain a cache key", ReadOnly: true, Output: &ops.ExplainOutput{},
			Description: "What's the cache identity of a task? The latest cache entry's key, command, exit code, duration and size.",
			Args:        []Arg{taskIDArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.ExplainCacheKey(ctx, e, ops.ExplainInput{TaskID: v.Str("taskId")})
			}},
		Def{Name: "whyDidThisRerun", Title: "Why did this re-run", ReadOnly: true, Output: &ops.WhyOutput{},
			Description: "Why did a task re-execute? vx why --format json: the execution's key against the previous execution's, whether it changed, the diff (files added/removed/changed, env names, definition fields, upstream keys) and, under a moved upstream, the root tasks whose own inputs moved. runId defaults to the task's latest run.",
			Args:        []Arg{taskIDArg, runIDArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.Why(ctx, e, ops.WhyInput{TaskID: v.Str("taskId"), RunID: v.Str("runId"), RunSet: v.Has("runId")})
			}},
		Def{Name: "pruneCache", Title: "Prune the cache", Destructive: true, Output: &cache.PruneResult{},
			Description: "Free cache space: vx cache prune --format json. olderThan (e.g. 7d) and maxSize (e.g. 2GiB) bound the cache; a dry run unless dryRun is false. Answers dryRun, evicted, bytesFreed, orphans, orphanBytes.",
			Args: []Arg{{Name: "olderThan", Kind: KindString, Desc: "evict entries older than this age: 30m, 12h, 7d, 2w"},
				{Name: "maxSize", Kind: KindString, Desc: "then evict oldest first down to this size: 500MB, 2GiB"},
				{Name: "dryRun", Kind: KindBool, Desc: "default true: report without deleting; false deletes"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				dry := true
				if v.Has("dryRun") {
					dry = v.Bool("dryRun")
				}
				return ops.Prune(ctx, e, ops.PruneInput{OlderThan: v.Str("olderThan"), MaxSize: v.Str("maxSize"), DryRun: dry})
			}},
		Def{Name: "getTaskLog", Title: "Task log", ReadOnly: true, Output: &ops.TaskLogOutput{},
			Description: "What did a task print? runId, taskId, status, source (failure, cache, or null when vx kept nothing) and the plain-text output, masked. runId defaults to the latest run that recorded the task.",
			Args:        []Arg{taskIDArg, runIDArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.TaskLog(ctx, e, ops.TaskLogInput{TaskID: v.Str("taskId"), RunID: v.Str("runId"), RunSet: v.Has("runId")})
			}},
		Def{Name: "getFailures", Title: "Why did a run fail", ReadOnly: true, Output: &ops.FailuresOutput{},
			Description: "Why did a run fail? Each failed task's taskId, exitCode, timedOut, output (first 8 KiB and last 56 KiB, masked) and the source locations it names {file, line, col} with absolute paths. runId defaults to the latest failed run.",
			Args:        []Arg{runIDArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.Failures(ctx, e, ops.FailuresInput{RunID: v.Str("runId"), RunSet: v.Has("runId")})
			}},
		Def{Name: "compareRuns", Title: "Compare runs", ReadOnly: true, Output: &ops.CompareOutput{},
			Description: "How did a run differ from the one before it? Per-task status, cache, duration and key changes, and totals. runId defaults to the latest run.",
			Args:        []Arg{runIDArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.CompareRuns(ctx, e, ops.CompareInput{RunID: v.Str("runId"), RunSet: v.Has("runId")})
			}},
		Def{Name: "runTrends", Title: "Run trends", ReadOnly: true, Output: &ops.TrendsOutput{},
			Description: "Activity over time: per hour or day bucket, runs, failed runs, task executions, cache hits and p50 run duration, newest first. limit 1..1000 is clamped.",
			Args: []Arg{{Name: "bucket", Kind: KindEnum, Enum: []string{"hour", "day"}, Desc: "bucket size (default hour)"},
				{Name: "limit", Kind: KindLimit, Desc: "buckets, 1..1000 (default 24), clamped"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.RunTrends(ctx, e, ops.TrendsInput{Bucket: v.Str("bucket"), Limit: v.Limit("limit"), LimitSet: v.Has("limit")})
			}},
		Def{Name: "planTasks", Title: "Plan tasks", ReadOnly: true, Output: &ops.PlanTasksOutput{},
			Description: "What would run, and why? vx run TASKS --dry=json, nothing executed: each task's predicted cache status, key, deps and p50, the affected reason under affected, and predicted wallMs, workMs and criticalPath. vxd keeps the plan: planId, expiresAt and prerequisites (config file hashes, vx.lock, git HEAD and uncommitted state, each task's key) let runTasks {planId} run exactly it.",
			Args:        []Arg{{Name: "tasks", Kind: KindTasks, Desc: "task names or project#task ids"}, {Name: "all", Kind: KindBool, Desc: "every task of the workspace"}, filterArg, affectedArg},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				aff, ref := affected(v)
				in := ops.RunTasksInput{Tasks: v.Strings("tasks"), All: v.Bool("all"), Filters: v.Strings("filter"), Affected: aff, AffectedRef: ref, VX: cfg.VX}
				if cfg.Plans != nil {
					return cfg.Plans.Plan(ctx, e, in, "planTasks")
				}
				return ops.PlanTasks(ctx, e, in)
			}},
	)
	if m, err := e.CurrentModel(); err == nil && m.Config.MCP.Run.Enabled() {
		allow := m.Config.MCP.Run
		var allowed func(string) bool
		desc := "Run tasks and report how it went: vx run TASKS --format json in this workspace, as a child process; returns exitCode and the run summary (each task's status, cache, duration). Progress notifications per finished task when the request has a progress token; cancelling stops the run. A failed task's output is getFailures."
		if !allow.All && allow.Set {
			allowed = allow.Allows
			desc += fmt.Sprintf(" This workspace lets agents run only: %v (their dependsOn still run).", allow.Tasks)
		}
		if cfg.Plans != nil {
			desc += planDescription(m.Config.MCP.RequirePlan)
			if m.Config.MCP.Confirm {
				desc += " This workspace asks the user to confirm the plan (mcp.confirm) before anything runs."
			}
		}
		defs = append(defs, Def{Name: "runTasks", Title: "Run tasks", Destructive: true, Output: &ops.RunTasksOutput{}, Description: desc,
			Args: runTasksArgs(cfg),
			Run: func(ctx context.Context, call *mcpserver.Call, v Values) (any, error) {
				aff, ref := affected(v)
				done, total := 0, 0
				onEvent := func(ev wire.Event) {
					if cfg.OnEvent != nil {
						cfg.OnEvent(ev)
					}
					switch ev.Type {
					case wire.EventRunStarted:
						total = ev.Tasks
					case wire.EventTaskFinished:
						done++
						call.Progress(float64(done), float64(total), fmt.Sprintf("%s %s (%s)", ev.TaskID, ev.Status, ev.Cache))
					}
				}
				in := ops.RunTasksInput{Tasks: v.Strings("tasks"), All: v.Bool("all"), Filters: v.Strings("filter"), Affected: aff, AffectedRef: ref, Force: v.Bool("force"), VX: cfg.VX}
				if cfg.Plans != nil {
					if m, err := e.CurrentModel(); err == nil && m.Config.MCP.Confirm {
						if err := checkPlanArgs(e, v); err != nil {
							return nil, err
						}
						return confirmRun(ctx, call, e, cfg.Plans, v, in, allowed, onEvent)
					}
					if applied, out, err := applyPlan(ctx, e, cfg.Plans, v, allowed, onEvent); applied {
						return out, err
					}
				}
				out, err := ops.RunTasks(ctx, e, in, allowed, onEvent)
				return out, err
			}})
	}
	defs = append(defs, cfg.Extra...)
	out := make([]mcpserver.Tool, 0, len(defs))
	for _, d := range defs {
		d.env = e
		out = append(out, d.tool())
	}
	return out
}
