package workspace

import (
	"encoding/json"
	"fmt"
	"time"
)

// ConfigFile is the name of the workspace configuration at the root.
const ConfigFile = "vx.workspace.json"

// ProjectFile is the optional per-project configuration.
const ProjectFile = "vx.project.json"

// Config is the decoded vx.workspace.json.
type Config struct {
	Schema       string                `json:"$schema,omitempty"`
	Projects     []string              `json:"projects,omitempty"`
	GlobalInputs []string              `json:"globalInputs,omitempty"`
	Env          []string              `json:"env,omitempty"`
	PassEnv      []string              `json:"passEnv,omitempty"`
	Workers      int                   `json:"workers,omitempty"`
	Tasks        map[string]TaskConfig `json:"tasks,omitempty"`
	MCP          MCPConfig             `json:"mcp,omitempty"`
	RemoteCache  *RemoteCacheConfig    `json:"remoteCache,omitempty"`
	// Sandbox is the default sandbox of every task; a task's own
	// sandbox overrides it field by field.
	Sandbox  *SandboxConfig  `json:"sandbox,omitempty"`
	Platform *PlatformConfig `json:"platform,omitempty"`
	// Daemon configures vxd for this workspace.
	Daemon *DaemonConfig `json:"daemon,omitempty"`
	// UI is how vx run shows a run on a terminal: uiTUI (the default) or
	// UIStream; `vx run --ui` overrides it.
	UI string `json:"ui,omitempty"`
	// Plugins infer tasks and add verbs (docs/plugins.md).
	Plugins []PluginDecl `json:"plugins,omitempty"`
}

// How vx run shows a run: a live status area under the task lines, or
// the task lines alone.
const (
	uiTUI    = "tui"
	UIStream = "stream"
)

// CheckUI refuses a ui value that is neither uiTUI nor UIStream.
func CheckUI(v string) error {
	if v != uiTUI && v != UIStream {
		return fmt.Errorf("ui: %q is not a way to show a run (use %q for the live view on a terminal, or %q for task lines alone)", v, uiTUI, UIStream)
	}
	return nil
}

// DaemonConfig configures the workspace's vxd.
type DaemonConfig struct {
	// Port is the loopback port vxd listens on (0 or absent: any free
	// port). `vxd serve --port` overrides it.
	Port int `json:"port,omitempty"`
}

// MaxPort is the largest TCP port.
const MaxPort = 65535

// validate refuses a port outside 0..65535.
func (d *DaemonConfig) validate() error {
	if d != nil && (d.Port < 0 || d.Port > MaxPort) {
		return fmt.Errorf("daemon.port: %d is not a port (use 1..%d, or leave it out for any free port)", d.Port, MaxPort)
	}
	return nil
}

// PlatformConfig opts the workspace into pushing its runs to a vx-platform
// (the token comes only from VX_PLATFORM_TOKEN).
type PlatformConfig struct {
	URL       string `json:"url"`
	Workspace string `json:"workspace"`
}

// TaskConfig is a task's declaration in the workspace or a project config.
// Pointer fields distinguish "not set" from an explicit empty value so a
// project override can replace a workspace default field by field.
type TaskConfig struct {
	Command   *string   `json:"command,omitempty"`
	DependsOn *[]string `json:"dependsOn,omitempty"`
	Inputs    *[]string `json:"inputs,omitempty"`
	Outputs   *[]string `json:"outputs,omitempty"`
	Env       *[]string `json:"env,omitempty"`
	PassEnv   *[]string `json:"passEnv,omitempty"`
	Cache     *bool     `json:"cache,omitempty"`
	Timeout   *string   `json:"timeout,omitempty"`
	Exec      *Exec     `json:"exec,omitempty"`

	// Sandbox confines the task's process (see SandboxConfig).
	Sandbox *SandboxConfig `json:"sandbox,omitempty"`
}

// Exec holds what the task's process receives beyond the command.
type Exec struct {
	Env map[string]EnvVar `json:"env,omitempty"`
}

// EnvVar declares one variable for a task's process. Without Value the
// variable is taken from vx's own environment. A Secret one is passed to
// the task and masked everywhere else; its value never joins the cache key.
type EnvVar struct {
	Value  *string `json:"value,omitempty"`
	Secret bool    `json:"secret,omitempty"`
}

// UnmarshalJSON accepts a plain string as shorthand for {"value": "..."}.
func (e *EnvVar) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		e.Value = &s
		return nil
	}
	const expected = `a string or {"value": string, "secret": bool}`
	if len(b) == 0 || b[0] != '{' {
		return &entryError{raw: b, expected: expected}
	}
	type plain EnvVar
	var p plain
	if err := decodeEntry(b, &p, expected); err != nil {
		return err
	}
	*e = EnvVar(p)
	return nil
}

// MCPConfig governs what the MCP tools may do. Run is true (any task),
// false (runTasks hidden) or a list of task names an agent may run.
type MCPConfig struct {
	Run MCPRun `json:"run"`
	// PlanTTL is how long a planTasks plan may be applied (default "5m").
	PlanTTL string `json:"planTtl,omitempty"`
	// RequirePlan makes runTasks accept only a planId from planTasks.
	RequirePlan bool `json:"requirePlan,omitempty"`
	// Confirm makes a plan run only once a person approved it.
	Confirm MCPConfirm `json:"confirm,omitzero"`
	// Tools is the catalog vxd lists: "full" (default) or "compact".
	Tools string `json:"tools,omitempty"`
}

// MCPConfirm is the decoded "mcp.confirm": false; true (a person
// approves each plan: through MCP elicitation when the client can ask,
// else outside MCP); or "outside" (only outside MCP, with vx approve or
// on the status page, whatever the client can do).
type MCPConfirm struct {
	On      bool
	Outside bool
}

func (c *MCPConfirm) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*c = MCPConfirm{On: on}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil || s != confirmOutside {
		return fmt.Errorf("mcp.confirm: expected true, false or %q", confirmOutside)
	}
	*c = MCPConfirm{On: true, Outside: true}
	return nil
}

func (c MCPConfirm) MarshalJSON() ([]byte, error) {
	if c.Outside {
		return json.Marshal(confirmOutside)
	}
	return json.Marshal(c.On)
}

// confirmOutside is the mcp.confirm value that takes approvals only
// outside MCP.
const confirmOutside = "outside"

// MCPRun is the decoded "mcp.run" value.
type MCPRun struct {
	Set   bool     // the key was present
	All   bool     // true: any task
	Tasks []string // allow-list when not All
}

func (r *MCPRun) UnmarshalJSON(b []byte) error {
	r.Set = true
	var v bool
	if err := json.Unmarshal(b, &v); err == nil {
		r.All = v
		r.Tasks = nil
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("mcp.run: expected true, false or a list of task names")
	}
	r.All = false
	r.Tasks = list
	return nil
}

func (r MCPRun) MarshalJSON() ([]byte, error) {
	if !r.Set {
		return []byte("true"), nil
	}
	if r.Tasks != nil {
		return json.Marshal(r.Tasks)
	}
	return json.Marshal(r.All)
}

// Enabled reports whether runTasks exists at all.
func (r MCPRun) Enabled() bool { return !r.Set || r.All || len(r.Tasks) > 0 }

// Allows reports whether an agent may run the task name.
func (r MCPRun) Allows(task string) bool {
	if !r.Set || r.All {
		return true
	}
	for _, t := range r.Tasks {
		if t == task {
			return true
		}
	}
	return false
}

// ProjectConfig is the decoded vx.project.json.
type ProjectConfig struct {
	Schema    string                `json:"$schema,omitempty"`
	Name      string                `json:"name,omitempty"`
	Tags      []string              `json:"tags,omitempty"`
	DependsOn []string              `json:"dependsOn,omitempty"`
	Tasks     map[string]TaskConfig `json:"tasks,omitempty"`
}

// TaskDef is a task's resolved definition in one project.
type TaskDef struct {
	Command       string            `json:"command"`
	CommandSource string            `json:"commandSource"` // "config", "package.json", "plugin" or "" for a no-op
	DependsOn     []string          `json:"dependsOn"`
	Inputs        []string          `json:"inputs"` // empty: every file of the project git does not ignore
	Outputs       []string          `json:"outputs"`
	Env           []string          `json:"env"`
	PassEnv       []string          `json:"passEnv"`
	Cache         bool              `json:"cache"`
	Timeout       time.Duration     `json:"-"`
	TimeoutText   string            `json:"timeout,omitempty"`
	ExecEnv       map[string]EnvVar `json:"-"`

	Sandbox *SandboxDef `json:"sandbox,omitempty"` // nil: not sandboxed

	// InferredFrom names the plugin and file the task was inferred from
	// (nil: configured or a script). It is not part of the definition
	// the cache key or the lock records.
	InferredFrom *TaskOrigin `json:"inferredFrom,omitempty"`
}

// NoOp reports whether the task runs nothing (no command anywhere).
func (d *TaskDef) NoOp() bool { return d.Command == "" }

// Secrets lists the names of the task's secret variables.
func (d *TaskDef) Secrets() []string {
	var out []string
	for name, v := range d.ExecEnv {
		if v.Secret {
			out = append(out, name)
		}
	}
	sortStrings(out)
	return out
}

// merge applies the fields set in o over c.
func (c TaskConfig) merge(o TaskConfig) TaskConfig {
	override(&c.Command, o.Command)
	override(&c.DependsOn, o.DependsOn)
	override(&c.Inputs, o.Inputs)
	override(&c.Outputs, o.Outputs)
	override(&c.Env, o.Env)
	override(&c.PassEnv, o.PassEnv)
	override(&c.Cache, o.Cache)
	override(&c.Timeout, o.Timeout)
	if o.Exec != nil {
		merged := &Exec{Env: map[string]EnvVar{}}
		if c.Exec != nil {
			for k, v := range c.Exec.Env {
				merged.Env[k] = v
			}
		}
		for k, v := range o.Exec.Env {
			merged.Env[k] = v
		}
		c.Exec = merged
	}
	c.Sandbox = c.Sandbox.merge(o.Sandbox)
	return c
}

// override sets *dst to v when v is set.
func override[T any](dst **T, v *T) {
	if v != nil {
		*dst = v
	}
}
