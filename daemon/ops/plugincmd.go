package ops

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/daemon/plugins"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/plugin"
)

// opPluginCommand is the operation running a plugin's verb.
const opPluginCommand = "runPluginCommand"

// PluginCommandInput names a plugin verb and what it is given: the
// command line's arguments after the verb, or a tool's input object.
type PluginCommandInput struct {
	Command string          `json:"command" jsonschema:"the plugin verb, as vx help lists it under Plugin commands"`
	Args    PluginArgs      `json:"args,omitempty" jsonschema:"the command line's arguments after the verb"`
	Input   json.RawMessage `json:"input,omitempty" jsonschema:"the verb's input object (its inputSchema)"`
	// Tool is set by the verb's MCP tool: the verb runs only while the
	// current model declares it readOnly with an inputSchema (a tool
	// served from an older model does not run a verb that no longer is).
	Tool bool `json:"-"`
}

// PluginArgs are a plugin verb's command-line arguments, passed as they
// are: any string, an empty or blank one included (the plugin decides what
// its arguments mean; vx's rule that a string argument holds something
// other than blanks is for its own inputs).
type PluginArgs []string

func (PluginArgs) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(0)}}
}

// PluginCommandOutput is a plugin verb's answer.
type PluginCommandOutput struct {
	Plugin   string          `json:"plugin"`
	Command  string          `json:"command"`
	Output   string          `json:"output"`
	Result   json.RawMessage `json:"result,omitempty"`
	ExitCode int             `json:"exitCode"`
}

// PluginCommandOperation is the runPluginCommand operation, which the
// command line's plugin verbs and their MCP tools call.
func PluginCommandOperation() *Operation {
	for _, o := range Operations() {
		if o.Name == opPluginCommand {
			return o
		}
	}
	panic("ops: " + opPluginCommand + " is not declared")
}

// PluginCommand runs a plugin's verb with the workspace model.
func PluginCommand(ctx context.Context, e *Env, in PluginCommandInput) (*PluginCommandOutput, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	st, c, ok := m.PluginCommand(in.Command)
	if !ok {
		return nil, opkit.Refuse("command", "no plugin adds the verb %q%s", in.Command, workspace.CloseHint(in.Command, pluginVerbs(m)))
	}
	if in.Tool && !isTool(c) {
		return nil, opkit.Refuse("command", "plugin %s's verb %q is not read-only: it runs on the command line only (vx %s)", st.Spec, in.Command, in.Command)
	}
	decl, entry, ok := st.Runnable()
	if !ok {
		return nil, opkit.Refuse("command", "plugin %s, which adds %q, did not load: %s", st.Spec, in.Command, e.Masker.String(st.Error))
	}
	r := plugins.Runner{Root: m.Root, Masker: e.Masker}
	req := plugin.Request{Command: in.Command, Args: append([]string{}, in.Args...), Input: in.Input, Workspace: workspaceFor(m)}
	if len(req.Input) == 0 {
		req.Input = json.RawMessage("null") // a command line gives none
	}
	a, err := r.Command(ctx, decl, entry, req)
	if err != nil {
		return nil, err
	}
	return &PluginCommandOutput{Plugin: st.Name, Command: in.Command, Output: a.Output, Result: a.Result, ExitCode: a.ExitCode}, nil
}

// pluginVerbs lists every verb m's plugins add.
func pluginVerbs(m *workspace.Model) []string {
	var out []string
	for _, s := range m.Plugins() {
		for _, c := range s.Commands {
			out = append(out, c.Name)
		}
	}
	return out
}

// workspaceFor is the model as a command receives it: projects and every
// defined task. Commands go to the plugin as they are (it runs as the
// user, as the tasks do); what it answers is masked (plugins.Runner).
func workspaceFor(m *workspace.Model) *plugin.Workspace {
	w := &plugin.Workspace{Root: m.Root, Projects: []plugin.Project{}, Tasks: []plugin.WorkspaceTask{}}
	for _, p := range m.Projects {
		w.Projects = append(w.Projects, plugin.Project{Name: p.Name, Root: p.Dir, Scripts: plugin.Scripts(p.Scripts)})
		for _, name := range projectTasks(m, p) {
			def, _ := m.Resolve(p.Name, name)
			t := plugin.WorkspaceTask{Project: p.Name, Name: name, Command: def.Command}
			if def.InferredFrom != nil {
				t.Plugin = def.InferredFrom.Plugin
			}
			w.Tasks = append(w.Tasks, t)
		}
	}
	return w
}

// PluginTool is a read-only plugin verb with an input schema, as an MCP
// tool: the verb's name, summary and schema.
type PluginTool struct {
	Plugin, Name, Summary string
	Schema                json.RawMessage
}

// PluginTools lists the verbs of m's plugins that are MCP tools: those
// declared readOnly with an inputSchema. Other verbs are not tools.
func PluginTools(m *workspace.Model) []PluginTool {
	var out []PluginTool
	for _, s := range m.Plugins() {
		for _, c := range s.Commands {
			if isTool(c) {
				out = append(out, PluginTool{Plugin: s.Name, Name: c.Name, Summary: c.Summary, Schema: c.InputSchema})
			}
		}
	}
	return out
}

// isTool reports whether c is served as an MCP tool: declared readOnly,
// with an inputSchema.
func isTool(c plugin.Command) bool { return c.ReadOnly && len(c.InputSchema) > 0 }
