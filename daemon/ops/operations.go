package ops

import (
	"context"
	"slices"
	"sync"

	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// The operations' names that other packages refer to.
const (
	OpPlanTasks   = "planTasks"
	OpRunTasks    = "runTasks"
	OpPruneCache  = "pruneCache"
	OpApprovePlan = "approvePlan"
)

// Operation is one of vx's operations: an opkit operation answered over
// an *Env.
type Operation = opkit.Operation[*Env]

var (
	opsOnce sync.Once
	opsList []*Operation
)

// Operations is every operation, in catalog order. To add one: declare it
// here with Define (name, title, description, annotations), give it a
// JSON-tagged input and output type and one function, and test it on a
// small workspace (ops_test.go); the MCP tool and its schemas follow.
func Operations() []*Operation {
	opsOnce.Do(func() { opsList = operations() })
	return opsList
}

func operations() []*Operation {
	return slices.Concat(configAndCacheOps(), runOps(), workspaceOps())
}

// configAndCacheOps are the questions about what the workspace declares
// and what its cache holds, and pruning it.
func configAndCacheOps() []*Operation {
	return []*Operation{
		opkit.Define(opkit.Spec[listTasksInput, ShowOutput]{Name: "listTasks", Title: "List tasks", ReadOnly: true,
			ModelOnly: func(in *listTasksInput) bool { return !in.Affected.On }, // affected reads git
			Description: "What can I run here? Every project, its tags, and the tasks a run would " +
				"see (command, dependsOn, cache), resolved as vx run resolves them; secret Values read ***. project narrows to " +
				"one project; filter and affected narrow as vx show --filter / --affected; overlaps answers only the tasks " +
				"that may write the same files (vx show --overlaps)."},
			func(ctx context.Context, e *Env, in listTasksInput) (*ShowOutput, error) {
				return Show(ctx, e, ShowInput{Project: in.Project, Filters: in.Filters, Affected: in.Affected, Overlaps: in.Overlaps})
			}),
		opkit.Define(opkit.Spec[configInput, ShowOutput]{Name: "getConfig", Title: "Get task configuration", ReadOnly: true,
			ModelOnly: func(*configInput) bool { return true },
			Description: "What does this task declare? vx show TARGET --format json: resolved " +
				"inputs, outputs, env, dependsOn, cache and timeout, secrets masked. target is a project, project#task, or a " +
				"task name."},
			func(ctx context.Context, e *Env, in configInput) (*ShowOutput, error) {
				return Show(ctx, e, ShowInput{Target: in.Target})
			}),
		opkit.Define(opkit.Spec[WorkspaceConfigInput, WorkspaceConfigOutput]{Name: "getWorkspaceConfig", Title: "Workspace configuration file", ReadOnly: true,
			ModelOnly: func(*WorkspaceConfigInput) bool { return true },
			Description: "The workspace configuration as written: vx config --format json. file is " +
				"vx.workspace.json's path, text the file with its comments, secret values masked. Mirrors the " +
				"vx://workspace/config resource; getConfig is a task's resolved configuration."},
			WorkspaceConfig),
		opkit.Define(opkit.Spec[CacheStatsInput, CacheStatsOutput]{Name: "getCacheStats", Title: "Cache statistics", ReadOnly: true,
			Description: "What's the state of my cache? Entries, total size, runs, executions and " +
				"hits in the last 24h (hits split local/remote), hit rate, and the remote cache if one is configured. " +
				"scope.project narrows every number to one project; checkRemote also asks the remote cache server. " + wire.ExecutionsDefined},
			CacheStats),
		opkit.Define(opkit.Spec[RunHistoryInput, RunHistoryOutput]{Name: "getRunHistory", Title: "Run history", ReadOnly: true,
			Description: "Which tasks have I been running, and how fast? Recent executions (exit " +
				"code, blockedBy, timedOut, reason) plus per-task p50/p99, success rate, hit rate, failure mode, flaky (only " +
				"when one cache key both passed and failed), maxPeakRssBytes and maxCpuParallelism. limit 1..500 is clamped " +
				"and the answer says the limit applied."},
			RunHistory),
		opkit.Define(opkit.Spec[ExplainInput, ExplainOutput]{Name: "explainCacheKey", Title: "Explain a cache key", ReadOnly: true,
			Description: "What's the cache identity of a task? The latest cache entry's key, command, exit code, duration and size."},
			ExplainCacheKey),
		opkit.Define(opkit.Spec[WhyInput, WhyOutput]{Name: "whyDidThisRerun", Title: "Why did this re-run", ReadOnly: true,
			Description: "Why did a task re-execute? vx why --format json: the execution's key " +
				"against the previous execution's, whether it changed, the diff (files added/removed/changed, env names, " +
				"definition fields, upstream keys) and, under a moved upstream, the root tasks whose own inputs moved. runId " +
				"defaults to the task's latest run."},
			Why),
		opkit.Define(opkit.Spec[PruneInput, PruneOutput]{Name: OpPruneCache, Title: "Prune the cache", Destructive: true, Idempotent: true,
			Description: "Free cache space: vx cache prune --format json. olderThan (e.g. 7d) and " +
				"maxSize (e.g. 2GiB) bound the cache; a dry run unless dryRun is false. Answers dryRun, evicted, bytesFreed, " +
				"orphans, orphanBytes."},
			PruneCache),
	}
}

// runOps are the questions about runs (logs, failures, comparisons,
// trends), planning and running tasks, and approving a plan.
func runOps() []*Operation {
	return []*Operation{
		opkit.Define(opkit.Spec[TaskLogInput, TaskLogOutput]{Name: "getTaskLog", Title: "Task log", ReadOnly: true,
			Description: "What did a task print? runId, taskId, status, source (failure, cache, or " +
				"null when vx kept nothing) and the plain-text output, masked. runId defaults to the latest run that recorded " +
				"the task."},
			TaskLog),
		opkit.Define(opkit.Spec[FailuresInput, FailuresOutput]{Name: "getFailures", Title: "Why did a run fail", ReadOnly: true,
			Description: "Why did a run fail? Each failed task's taskId, exitCode, timedOut, " +
				"output (first 8 KiB and last 56 KiB, masked) and the source locations it names {file, line, col} with " +
				"absolute paths. runId defaults to the latest failed run."},
			Failures),
		opkit.Define(opkit.Spec[CompareInput, CompareOutput]{Name: "compareRuns", Title: "Compare runs", ReadOnly: true,
			Description: "How did a run differ from the one before it? Per-task status, cache, duration and key changes, and totals. runId defaults to the latest run."},
			CompareRuns),
		opkit.Define(opkit.Spec[TrendsInput, TrendsOutput]{Name: "runTrends", Title: "Run trends", ReadOnly: true,
			Description: "Activity over time: per hour or day bucket, runs, failed runs, task executions, cache hits and p50 run duration, newest first. limit 1..1000 is clamped. " + wire.ExecutionsDefined},
			RunTrends),
		opkit.Define(opkit.Spec[PlanTasksInput, PlanTasksOutput]{Name: OpPlanTasks, Title: "Plan tasks", ReadOnly: true,
			Description: "What would run, and why? vx run TASKS --dry=json, nothing executed: each " +
				"task's predicted cache status, key, deps and p50, the affected reason under affected, and predicted wallMs, " +
				"workMs and criticalPath."},
			func(ctx context.Context, e *Env, in PlanTasksInput) (*PlanTasksOutput, error) {
				return PlanTasks(ctx, e, RunTasksInput{PlanTasksInput: in})
			}),
		opkit.Define(opkit.Spec[RunTasksInput, RunTasksOutput]{Name: OpRunTasks, Title: "Run tasks", Destructive: true,
			Description: "Run tasks and report how it went: vx run TASKS --format json in this " +
				"workspace, as a child process; returns exitCode and the run summary (each task's status, cache, duration). " +
				"Progress notifications per finished task when the request has a progress token; cancelling stops the run. A " +
				"failed task's output is getFailures."},
			func(ctx context.Context, e *Env, in RunTasksInput) (*RunTasksOutput, error) {
				return RunTasks(ctx, e, in, nil, nil)
			}),
		opkit.Define(opkit.Spec[ApproveInput, ApproveOutput]{Name: OpApprovePlan, Title: "Approve a plan", CLIOnly: true,
			Description: "A person approves a plan under mcp.confirm (vx approve PLAN), with the " +
				"running vxd's approval key from .vx/daemon/approve.key: never a tool, so that MCP access alone cannot " +
				"approve. Without a plan, lists the plans waiting; page prints the status page address that logs a browser in " +
				"to approve."},
			ApprovePlan),
		// Plugin verbs run code the workspace's plugins declare: as an
		// operation only on the command line; a verb declared readOnly
		// with an inputSchema is served as a tool of its own name
		// (PluginTools), through this operation.
		opkit.Define(opkit.Spec[PluginCommandInput, PluginCommandOutput]{Name: opPluginCommand, Title: "Run a plugin command", CLIOnly: true,
			Description: "Runs a verb a plugin adds (vx VERB ARGS…) with the workspace model: the plugin's " +
				"output, its JSON result and exit code (docs/plugins.md)."},
			PluginCommand),
	}
}

// workspaceOps are the questions about the workspace as a whole: its
// latest run, lock, docs, adoption, state and health.
func workspaceOps() []*Operation {
	return []*Operation{
		opkit.Define(opkit.Spec[RunInput, RunOutput]{Name: "getLastRun", Title: "Latest run", ReadOnly: true,
			Description: "The latest run (or runId) with every task's status, cache, duration, exit code and reason: vx last --format json. Mirrors the vx://runs/latest resource."},
			Run),
		opkit.Define(opkit.Spec[checkLockInput, lockfile.CheckResult]{Name: "checkLock", Title: "Check the config lock", ReadOnly: true,
			Description: "Is the config lock current? vx lock --check --format json: upToDate, " +
				"audited, notAudited, and each drift in problems (task id, field, locked value, current value; secrets " +
				"masked); exitCode 1 on drift."},
			func(ctx context.Context, e *Env, _ checkLockInput) (*lockfile.CheckResult, error) {
				return CheckLock(ctx, e)
			}),
		opkit.Define(opkit.Spec[SearchDocsInput, docsearch.Result]{Name: "searchDocs", Title: "Search the docs", ReadOnly: true,
			Description: "Where is X documented? vx docs QUERY --format json: the reference " +
				"sections (config keys, verbs and flags, tools and arguments, troubleshooting) holding every word of the " +
				"query, each whole with its stable URL, best first. No network."},
			func(ctx context.Context, _ *Env, in SearchDocsInput) (*docsearch.Result, error) {
				return SearchDocs(ctx, in)
			}),
		opkit.Define(opkit.Spec[InitInput, migrate.Plan]{Name: "planInit", Title: "Plan vx adoption", ReadOnly: true,
			Description: "What would adopting vx write here? vx init --dry --format json: each " +
				"file with its full text and whether it is new, kept or replaced (.gitignore, which gets .vx/: new, or " +
				"appended with the lines added), todos (what could not be translated, with file:line:col and the reason), " +
				"notes and next steps. Reads turbo.json, nx.json/project.json or package.json workspaces. Nothing is written. " +
				"mode \"force\" plans replacing an existing vx.workspace.json; sandbox \"report\" or \"enforce\" proposes a " +
				"sandbox for every task (none by default)."},
			func(ctx context.Context, e *Env, in InitInput) (*migrate.Plan, error) {
				if in.Dir == "" {
					in.Dir = e.Root
				}
				return PlanInit(ctx, in)
			}),
		opkit.Define(opkit.Spec[InfoInput, InfoOutput]{Name: "getWorkspaceInfo", Title: "Workspace info", ReadOnly: true,
			Description: "What is this workspace, and what will a run use? vx info --format json: " +
				"versions, projects and tasks (and configs that did not load, with their errors), the worker count and memory " +
				"budget with their sources, cache format and state, history state, flaky tasks, the lock's state, the daemon's " +
				"state, the MCP settings."},
			func(ctx context.Context, e *Env, in InfoInput) (*InfoOutput, error) {
				if in.Daemon == nil {
					in.Daemon = e.Daemon
				}
				return Info(ctx, e, in)
			}),
		opkit.Define(opkit.Spec[DoctorInput, DoctorOutput]{Name: "diagnose", Title: "Diagnose the workspace", ReadOnly: true,
			Description: "What stops vx working here? vx doctor --format json: git present and the " +
				"workspace a repository, .vx/ writable, the run history's integrity, the configuration loading, vx.lock " +
				"current, the daemon, the remote cache and the platform (reachable and the token accepted, when configured), " +
				"how vx was installed (npm package or standalone binary, and whether each call starts Node), vx on PATH for " +
				"MCP clients; each check ok, problem or skipped, a problem with its fix; ok false when any problem; mcpConfig " +
				"is the client configuration to use."},
			func(ctx context.Context, e *Env, in DoctorInput) (*DoctorOutput, error) {
				if in.Self == nil && in.Probe == nil {
					in.Self = e.Daemon
				}
				in.VX = e.vx(in.VX)
				return Doctor(ctx, e, in)
			}),
	}
}

// checkLockInput is checkLock's input: it takes no arguments.
type checkLockInput struct{}
