package ops

import (
	"context"
	"runtime"
	"strconv"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/sandbox"
	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// Setting is a value and where it came from: flag, env, config or default.
type Setting struct {
	Value  string `json:"value"`
	Source string `json:"source"`
}

// InfoOutput describes the workspace and what a run will use.
type InfoOutput struct {
	Versions struct {
		VX            string `json:"vx"`
		Key           string `json:"key"`
		CacheFormat   int    `json:"cacheFormat"`
		HistorySchema int    `json:"historySchema"`
		Go            string `json:"go"`
	} `json:"versions"`
	Root         string       `json:"root"`
	ConfigFile   string       `json:"configFile"`
	ConfigErrors []string     `json:"configErrors"`
	Projects     int          `json:"projects"`
	ProjectNames []string     `json:"projectNames"`
	Tasks        []string     `json:"tasks"`
	RootTasks    []string     `json:"rootTasks"`
	Workers      Setting      `json:"workers"`
	MemoryBudget Setting      `json:"memoryBudget"`
	Cache        InfoCache    `json:"cache"`
	History      InfoHistory  `json:"history"`
	Flaky        []string     `json:"flakyTasks"`
	Lock         *LockState   `json:"lock"`
	Daemon       *wire.Status `json:"daemon"`
	DaemonNote   string       `json:"daemonNote,omitempty"`
	MCP          InfoMCP      `json:"mcp"`
	Git          InfoGit      `json:"git"`
	// OutputOverlaps are tasks that may run at once and write the same
	// files; vx runs each pair one at a time.
	OutputOverlaps []workspace.OutputOverlap `json:"outputOverlaps"`

	// RemoteCache is the remote cache's settings, without the token, and
	// the status the latest run recorded.
	RemoteCache *wire.RemoteStatus `json:"remoteCache"`

	// Sandbox is the sandbox runtime's verdict for this host and how many
	// tasks declare a sandbox.
	Sandbox wire.SandboxVerdict `json:"sandbox"`

	// Plugins are the declared plugins (docs/plugins.md), in order.
	Plugins []InfoPlugin `json:"plugins"`
}

// InfoCache is the cache's state.
type InfoCache struct {
	Dir     string `json:"dir"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"`
	Error   string `json:"error,omitempty"`
}

// InfoHistory is the history's state.
type InfoHistory struct {
	File       string `json:"file"`
	Runs       int64  `json:"runs"`
	Executions int64  `json:"executions"`
	Error      string `json:"error,omitempty"`
}

// InfoMCP is the workspace's MCP settings.
type InfoMCP struct {
	RunTasks string   `json:"runTasks"` // "any", "none" or "allow-list"
	Allowed  []string `json:"allowed"`
	Command  string   `json:"clientCommand"`
	// The plan and confirmation settings (mcp.requirePlan, mcp.confirm,
	// mcp.planTtl) and the catalog listed (mcp.tools).
	RequirePlan bool   `json:"requirePlan"`
	Confirm     bool   `json:"confirm"`
	PlanTTL     string `json:"planTtl"`
	Tools       string `json:"tools"`
}

// InfoGit is the repository state a run records.
type InfoGit struct {
	Branch string `json:"branch"`
	Commit string `json:"commit"`
}

// LockState summarises vx.lock against the configuration.
type LockState struct {
	Present  bool   `json:"present"`
	UpToDate bool   `json:"upToDate"`
	Problems int    `json:"problems"`
	Error    string `json:"error,omitempty"`
}

func lockState(m *workspace.Model, e *Env) *LockState {
	res, err := lockfile.Check(m, e.Masker)
	if err != nil {
		return &LockState{Present: true, Error: e.Masker.String(err.Error())}
	}
	return &LockState{Present: res.Present, UpToDate: res.UpToDate, Problems: len(res.Problems)}
}

// InfoInput carries what only the caller knows.
type InfoInput struct {
	Concurrency int                 `json:"-" flag:"concurrency" arg:"N" help:"show the worker count a run with --concurrency N would use"` // 0 when absent
	Daemon      func() *wire.Status `json:"-"`                                                                                              // nil: not asked / not running
	DaemonNote  string              `json:"-"`
}

// Info answers `vx info` and getWorkspaceInfo.
func Info(ctx context.Context, e *Env, in InfoInput) (*InfoOutput, error) {
	out := &InfoOutput{Root: e.Root, ConfigErrors: []string{}, ProjectNames: []string{}, Tasks: []string{}, RootTasks: []string{},
		Flaky: []string{}, OutputOverlaps: []workspace.OutputOverlap{}, Plugins: []InfoPlugin{}}
	out.Versions.VX, out.Versions.Key, out.Versions.CacheFormat, out.Versions.HistorySchema, out.Versions.Go = version.Version, taskkey.Version,
		cache.FormatVersion, history.SchemaVersion, runtime.Version()
	if err := e.LoadError(); err != nil {
		out.ConfigErrors = append(out.ConfigErrors, e.Masker.String(err.Error()))
	}
	m, _ := e.CurrentModel()
	if m != nil {
		out.ConfigFile = m.ConfigPath
		out.Projects = len(m.Projects)
		out.ProjectNames = projectNames(m)
		out.Tasks = m.TaskNames()
		out.RootTasks = nonNil(m.RootTasks())
		out.OutputOverlaps = append(out.OutputOverlaps, m.OutputOverlaps()...)
		out.Plugins = infoPlugins(m, e.Masker)
		switch {
		case !m.Config.MCP.Run.Set || m.Config.MCP.Run.All:
			out.MCP.RunTasks = "any"
		case len(m.Config.MCP.Run.Tasks) == 0:
			out.MCP.RunTasks = "none"
		default:
			out.MCP.RunTasks = "allow-list"
		}
		out.MCP.Allowed = nonNil(m.Config.MCP.Run.Tasks)
		out.MCP.RequirePlan, out.MCP.Confirm = m.Config.MCP.RequirePlan, m.Config.MCP.Confirm.On
		out.MCP.PlanTTL = m.Config.MCP.PlanTTLDuration().String()
		out.MCP.Tools = workspace.ToolsFull
		if m.Config.MCP.Compact() {
			out.MCP.Tools = workspace.ToolsCompact
		}
	}
	out.Sandbox = sandbox.Detect()
	if m != nil {
		out.Sandbox.Tasks = m.Sandboxed()
	}
	out.MCP.Command = `{ "mcpServers": { "vx": { "command": "vx", "args": ["mcp"] } } }`
	n, src := runner.Workers(in.Concurrency, m)
	if in.Concurrency == 0 {
		if v := e.Environ["VX_CONCURRENCY"]; v != "" {
			if k, err := strconv.Atoi(v); err == nil && k > 0 {
				n, src = k, "env"
			}
		}
	}
	out.Workers = Setting{Value: strconv.Itoa(n), Source: src}
	budget, bsrc := runner.MemoryBudget(e.Environ)
	out.MemoryBudget = Setting{Value: strconv.FormatInt(budget, 10), Source: bsrc}
	if c, err := e.Cache(); err == nil {
		out.Cache.Dir = c.Dir()
		if st, err := c.Stats(""); err == nil {
			out.Cache.Entries, out.Cache.Bytes = st.Entries, st.Bytes
		} else {
			out.Cache.Error = err.Error()
		}
	} else {
		out.Cache.Error = err.Error() // a cache that cannot open is said, not left blank
	}
	out.History.File = history.Path(e.Root)
	if h, err := e.History(ctx); err == nil {
		if out.History.Runs, out.History.Executions, err = h.Counts(ctx); err != nil {
			out.History.Error = err.Error()
		}
		if f, err := h.FlakyTasks(ctx); err == nil && f != nil {
			out.Flaky = f
		}
	} else {
		out.History.Error = err.Error()
	}
	if m != nil {
		out.Lock = lockState(m, e)
	}
	if in.Daemon != nil {
		out.Daemon = in.Daemon()
	}
	out.DaemonNote = in.DaemonNote
	out.Git.Branch, out.Git.Commit = runner.GitHead(e.Root)
	out.RemoteCache = remoteInfo(ctx, e)
	return out, nil
}
