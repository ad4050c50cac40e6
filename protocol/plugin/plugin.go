// Package plugin is the wire protocol between vx and a plugin: one JSON
// request written to the plugin's stdin, one JSON answer read from its
// stdout, one process per request. docs/plugins.md describes it for plugin
// authors; these types and constants are its one definition in Go.
package plugin

import "encoding/json"

// Version is the protocol version every request and answer carries in
// "protocol". An answer with another version is refused.
const Version = 1

// The stages a request names in "stage".
const (
	StageDescribe = "describe"
	StageTasks    = "tasks"
	StageCommand  = "command"
)

// The stages a plugin may list in its describe answer: "tasks" (it
// infers tasks) and "commands" (it adds verbs).
const (
	OffersTasks    = "tasks"
	OffersCommands = "commands"
)

// PackageKey is the key of a package.json naming the plugin's entry:
// {"vx": {"plugin": "./index.mjs"}}.
const PackageKey = "vx"

// Limits vx holds every plugin process to.
const (
	// DefaultTimeout is how long one request may take, in seconds, unless
	// the declaration's "timeout" says otherwise.
	DefaultTimeoutSeconds = 30
	// MaxTimeoutSeconds bounds a declared timeout.
	MaxTimeoutSeconds = 600
	// MaxAnswer is the most bytes of stdout vx reads; a longer answer is
	// refused.
	MaxAnswer = 4 << 20
	// MaxStderr is the most bytes of stderr vx keeps (the tail).
	MaxStderr = 16 << 10
	// MaxTasks is the most tasks one tasks answer may hold.
	MaxTasks = 20000
	// MaxGlobs is the most globs a describe answer may declare.
	MaxGlobs = 64
	// MaxCommands is the most verbs a describe answer may declare.
	MaxCommands = 64
	// MaxFiles is the most matched files vx sends in a tasks request.
	MaxFiles = 100000
)

// ReservedVerbs are vx's own verbs and help words: a plugin command of
// one of these names is refused (it would shadow the built-in verb).
// cli/vx's tests hold this list to the verbs it has.
var ReservedVerbs = []string{"approve", "cache", "config", "docs", "doctor", "help", "info", "init", "last", "lock",
	"mcp", "push", "run", "show", "version", "why"}

// Request is what vx writes to a plugin's stdin.
type Request struct {
	Protocol int             `json:"protocol"`
	Stage    string          `json:"stage"`
	Options  json.RawMessage `json:"options"`
	// Tasks stage: the workspace-relative, slash-separated files that
	// match the plugin's globs, sorted, and every project.
	Files    []string  `json:"files,omitzero"`
	Projects []Project `json:"projects,omitzero"`
	// Command stage: args is always there (empty when none) and input is
	// null from a command line; the other stages have neither.
	Command   string          `json:"command,omitempty"`
	Args      []string        `json:"args,omitzero"`
	Input     json.RawMessage `json:"input,omitempty"`
	Workspace *Workspace      `json:"workspace,omitempty"`
}

// Project is a project as a plugin sees it.
type Project struct {
	Name string `json:"name"`
	// Root is the project's directory, workspace-relative and
	// slash-separated: "." for a project at the workspace root, never "".
	Root string `json:"root"`
	// Scripts are the scripts of the project's package.json, an object
	// in name order ({} for none): a plugin that reads them need not
	// match package.json files, and a tasks answer is asked again when
	// they change (they are part of what it is stored for).
	Scripts Scripts `json:"scripts"`
}

// Scripts are a package.json's scripts, sorted by name, written as a JSON
// object (vx writes requests and never reads one back).
type Scripts []Script

// Script is one package.json script.
type Script struct {
	Name    string
	Command string
}

// MarshalJSON writes the scripts as one object, in their order.
func (s Scripts) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 2+len(s)*32), '{')
	for i, sc := range s {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(sc.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(sc.Command)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// Workspace is the model a command receives.
type Workspace struct {
	Root     string          `json:"root"`
	Projects []Project       `json:"projects"`
	Tasks    []WorkspaceTask `json:"tasks"`
}

// WorkspaceTask is one resolved task of the model sent to a command.
type WorkspaceTask struct {
	Project string `json:"project"`
	Name    string `json:"name"`
	Command string `json:"command"`
	// Plugin names the plugin that inferred the task ("" when configured).
	Plugin string `json:"plugin,omitempty"`
}

// Describe is the answer to a describe request.
type Describe struct {
	Protocol int    `json:"protocol"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	// Stages is what the plugin offers: OffersTasks, OffersCommands.
	Stages []string `json:"stages"`
	// Globs select the files a tasks request carries (doublestar syntax,
	// workspace-relative; node_modules and .vx are never matched).
	Globs    []string  `json:"globs,omitempty"`
	Commands []Command `json:"commands,omitempty"`
}

// Command is a verb a plugin adds to vx.
type Command struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// ReadOnly with an InputSchema makes the verb an MCP tool too.
	ReadOnly    bool            `json:"readOnly,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// TasksAnswer is the answer to a tasks request.
type TasksAnswer struct {
	Protocol int    `json:"protocol"`
	Tasks    []Task `json:"tasks"`
}

// Task is one inferred task. Fields have the names and meanings of a task
// configured in vx.workspace.json; inputs and outputs are relative to the
// project's root. Absent fields are left to the configured tasks and the
// defaults.
type Task struct {
	Project   string    `json:"project"`
	Name      string    `json:"name"`
	File      string    `json:"file"`
	Command   *string   `json:"command,omitempty"`
	DependsOn *[]string `json:"dependsOn,omitempty"`
	Inputs    *[]string `json:"inputs,omitempty"`
	Outputs   *[]string `json:"outputs,omitempty"`
	Env       *[]string `json:"env,omitempty"`
	PassEnv   *[]string `json:"passEnv,omitempty"`
	Cache     *bool     `json:"cache,omitempty"`
	Timeout   *string   `json:"timeout,omitempty"`
}

// CommandAnswer is the answer to a command request: the text to print
// and, for a read-only verb, the JSON result an MCP tool answers with.
type CommandAnswer struct {
	Protocol int             `json:"protocol"`
	Output   string          `json:"output,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	// ExitCode is the verb's exit status on the command line (0: success).
	ExitCode int `json:"exitCode,omitempty"`
}
