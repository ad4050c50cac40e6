package ops

import (
	"context"
	"fmt"
	"sort"

	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

// TaskInfo is a task's resolved definition in one project.
type TaskInfo struct {
	TaskID        string            `json:"taskId"`
	Project       string            `json:"project"`
	Task          string            `json:"task"`
	Command       string            `json:"command"`
	CommandSource string            `json:"commandSource"`
	NoOp          bool              `json:"noOp,omitempty"`
	DependsOn     []string          `json:"dependsOn"`
	Cache         bool              `json:"cache"`
	Inputs        []string          `json:"inputs"`
	Outputs       []string          `json:"outputs"`
	Env           []string          `json:"env"`
	PassEnv       []string          `json:"passEnv"`
	ExecEnv       map[string]string `json:"execEnv,omitempty"` // secret values read ***
	Secrets       []string          `json:"secrets"`
	Timeout       string            `json:"timeout,omitempty"`

	// Sandbox is the resolved sandbox; absent when the task declares none.
	Sandbox *workspace.SandboxDef `json:"sandbox,omitempty"`
	// InferredFrom is the plugin and file the task was inferred from
	// (absent for a configured task or a script).
	InferredFrom *workspace.TaskOrigin `json:"inferredFrom,omitempty"`
}

// ProjectInfo is one project with the tasks a run would see in it.
type ProjectInfo struct {
	Name      string     `json:"name"`
	Dir       string     `json:"dir"`
	Tags      []string   `json:"tags"`
	DependsOn []string   `json:"dependsOn"`
	Tasks     []TaskInfo `json:"tasks"`
}

// ShowInput narrows Show.
type ShowInput struct {
	Target   string   `json:"target,omitempty" jsonschema:"a project, project#task, or a task name" pos:"target"`
	Project  string   `json:"project,omitempty" jsonschema:"one project's name"`
	Filters  Filter   `json:"filter,omitempty" jsonschema:"as vx run --filter: a name, glob, tag:NAME or ./path, with web... / ...web / !SEL as in turbo (string or array)" flag:"filter" arg:"SEL" help:"only projects matching SEL"`
	Affected Affected `json:"affected,omitzero" jsonschema:"true: projects changed since the default branch, and dependents; or a git ref" flag:"affected" arg:"REF" help:"only affected projects"`
	Overlaps bool     `json:"overlaps,omitempty" jsonschema:"true: only outputOverlaps, the tasks that may write the same files" flag:"overlaps" help:"only tasks that may write the same files, and why"`
}

// listTasksInput is listTasks': the workspace's tasks, narrowed.
type listTasksInput struct {
	Project  string   `json:"project,omitempty" jsonschema:"one project's name"`
	Filters  Filter   `json:"filter,omitempty" jsonschema:"projects to include, as vx run --filter: a name or glob, tag:NAME, or ./path/glob, with web... / ...web / !SEL as in turbo (a string or an array)"`
	Affected Affected `json:"affected,omitzero" jsonschema:"true: only projects changed against the default branch's merge base, plus dependents; or a git ref to compare against"`
	Overlaps bool     `json:"overlaps,omitempty" jsonschema:"true: answer only outputOverlaps, the pairs of tasks that may write the same files (projects and tasks left empty)"`
}

// configInput is getConfig's: one target's resolved configuration.
type configInput struct {
	Target string `json:"target" jsonschema:"a project, project#task, or a task name"`
}

// ShowOutput is the resolved configuration.
type ShowOutput struct {
	Root      string            `json:"root"`
	Target    string            `json:"target,omitempty"`
	Kind      string            `json:"kind"` // workspace, project, task, taskName
	Projects  []ProjectInfo     `json:"projects"`
	RootTasks []TaskInfo        `json:"rootTasks"`
	Global    *GlobalInfo       `json:"global,omitempty"`
	Affected  map[string]string `json:"affected,omitempty"`
	Total     int               `json:"totalProjects"`
	Note      string            `json:"note,omitempty"`
	// OutputOverlaps are pairs of the shown tasks that may run at once and
	// write the same files (overlaps.go).
	OutputOverlaps []workspace.OutputOverlap `json:"outputOverlaps"`
}

// maxProjects caps the projects one answer lists, so an agent's context is
// not flooded in a large workspace; the note says how to narrow it.
const maxProjects = 100

// GlobalInfo is what joins every task's key.
type GlobalInfo struct {
	GlobalInputs []string `json:"globalInputs"`
	Env          []string `json:"env"`
	PassEnv      []string `json:"passEnv"`
}

func taskInfo(m *workspace.Model, mask *secret.Masker, project, task string) TaskInfo {
	def, _ := m.Resolve(project, task)
	ti := TaskInfo{TaskID: workspace.TaskID(project, task), Project: project, Task: task, Command: mask.String(def.Command), CommandSource: def.CommandSource,
		NoOp: def.NoOp(), DependsOn: def.DependsOn, Cache: def.Cache, Inputs: def.Inputs, Outputs: def.Outputs, Env: def.Env, PassEnv: def.PassEnv,
		Secrets: def.Secrets(), Timeout: def.TimeoutText, InferredFrom: def.InferredFrom}
	if ti.Secrets == nil {
		ti.Secrets = []string{}
	}
	if sb := def.Sandbox; sb != nil {
		c := *sb
		c.Write = make([]string, len(sb.Write))
		for i, g := range sb.Write {
			c.Write[i] = mask.String(g)
		}
		ti.Sandbox = &c
	}
	if len(def.ExecEnv) > 0 {
		ti.ExecEnv = map[string]string{}
		for name, v := range def.ExecEnv {
			switch {
			case v.Secret:
				ti.ExecEnv[name] = secret.Mask
			case v.Value != nil:
				ti.ExecEnv[name] = mask.String(*v.Value)
			default:
				ti.ExecEnv[name] = "(from the environment)"
			}
		}
	}
	return ti
}

// projectTasks lists the tasks defined in a project, sorted.
func projectTasks(m *workspace.Model, p *workspace.Project) []string {
	var out []string
	for _, name := range m.TaskNames() {
		if _, defined := m.Resolve(p.Name, name); defined {
			out = append(out, name)
		}
	}
	return out
}

// Show answers `vx show [TARGET]`, getConfig and listTasks; with
// Overlaps, only the output overlaps among what it would show.
func Show(ctx context.Context, e *Env, in ShowInput) (*ShowOutput, error) {
	out, err := show(ctx, e, in)
	if err != nil || !in.Overlaps {
		return out, err
	}
	out.Projects, out.RootTasks, out.Global, out.Note = []ProjectInfo{}, []TaskInfo{}, nil, ""
	return out, nil
}

func show(ctx context.Context, e *Env, in ShowInput) (*ShowOutput, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	out := &ShowOutput{Root: m.Root, Target: in.Target, Kind: "workspace", Projects: []ProjectInfo{}, RootTasks: []TaskInfo{}}
	projects, err := showSelect(ctx, m, in, out)
	if err != nil {
		return nil, err
	}
	onlyTask := ""
	target := in.Target
	switch {
	case target == "":
		out.Global = &GlobalInfo{GlobalInputs: nonNil(m.Config.GlobalInputs), Env: nonNil(m.Config.Env), PassEnv: nonNil(m.Config.PassEnv)}
	case containsHash(target):
		return showTask(e, m, target, out)
	default:
		if p, ok := m.Project(target); ok {
			out.Kind = "project"
			projects = []*workspace.Project{p}
		} else if m.KnownTask(target) || hasRootTask(m, target) {
			out.Kind = "taskName"
			onlyTask = target
		} else {
			return nil, opkit.Refuse("target", "%q is neither a project nor a task%s", target, workspace.CloseHint(target, append(projectNames(m), m.TaskNames()...)))
		}
	}
	showProjectTasks(e, m, projects, onlyTask, out)
	out.Total = len(out.Projects)
	showOverlaps(m, out)
	if len(out.Projects) > maxProjects {
		out.Projects = out.Projects[:maxProjects]
		out.Note = fmt.Sprintf("showing %d of %d projects: narrow with project, filter (a glob, tag:NAME, ./path) or affected", maxProjects, out.Total)
	}
	if out.Kind == "workspace" || out.Kind == "taskName" {
		if in.Project == "" && len(in.Filters) == 0 && !in.Affected.On {
			for _, tn := range m.RootTasks() {
				if onlyTask == "" || tn == onlyTask {
					out.RootTasks = append(out.RootTasks, taskInfo(m, e.Masker, workspace.RootProject, tn))
				}
			}
		}
	}
	return out, nil
}

// showSelect returns the projects Show describes: the workspace's, narrowed
// by the filters or affected (whose reasons go into out), then to project.
func showSelect(ctx context.Context, m *workspace.Model, in ShowInput, out *ShowOutput) ([]*workspace.Project, error) {
	projects := m.Projects
	if len(in.Filters) > 0 || in.Affected.On {
		sel, err := m.Select(ctx, projectSelection(in.Filters, in.Affected))
		if err != nil {
			return nil, err
		}
		projects = sel.Projects
		out.Affected = sel.Reasons
	}
	if in.Project != "" {
		p, ok := m.Project(in.Project)
		if !ok {
			return nil, opkit.Refuse("project", "no project named %q%s", in.Project, workspace.CloseHint(in.Project, projectNames(m)))
		}
		keep := []*workspace.Project{}
		for _, q := range projects {
			if q == p {
				keep = append(keep, p)
			}
		}
		projects = keep
	}
	return projects, nil
}

// showTask describes the one task target names (project#task or //#task).
func showTask(e *Env, m *workspace.Model, target string, out *ShowOutput) (*ShowOutput, error) {
	pn, tn, err := opkit.TaskID(target).Split("target")
	if err != nil {
		return nil, err
	}
	if pn == workspace.RootProject {
		if _, ok := m.Resolve(pn, tn); !ok {
			return nil, opkit.Refuse("target", "no root task %q (root tasks are declared as \"//#name\" in %s)", target, workspace.ConfigFile)
		}
		out.Kind = "task"
		out.RootTasks = append(out.RootTasks, taskInfo(m, e.Masker, pn, tn))
		return showOverlaps(m, out), nil
	}
	p, ok := m.Project(pn)
	if !ok {
		return nil, opkit.Refuse("target", "no project named %q%s", pn, workspace.CloseHint(pn, projectNames(m)))
	}
	if _, defined := m.Resolve(pn, tn); !defined {
		return nil, opkit.Refuse("target", "project %s has no task %q%s", pn, tn, workspace.CloseHint(tn, projectTasks(m, p)))
	}
	out.Kind = "task"
	out.Projects = append(out.Projects, ProjectInfo{Name: p.Name, Dir: p.Dir, Tags: p.Tags, DependsOn: nonNil(p.Deps), Tasks: []TaskInfo{taskInfo(m, e.Masker, pn, tn)}})
	out.Total = 1
	return showOverlaps(m, out), nil
}

// showProjectTasks adds each of projects with its tasks to out, only
// onlyTask (and only projects that have it) when it is set.
func showProjectTasks(e *Env, m *workspace.Model, projects []*workspace.Project, onlyTask string, out *ShowOutput) {
	for _, p := range projects {
		pi := ProjectInfo{Name: p.Name, Dir: p.Dir, Tags: p.Tags, DependsOn: nonNil(p.Deps), Tasks: []TaskInfo{}}
		for _, tn := range projectTasks(m, p) {
			if onlyTask != "" && tn != onlyTask {
				continue
			}
			pi.Tasks = append(pi.Tasks, taskInfo(m, e.Masker, p.Name, tn))
		}
		if onlyTask != "" && len(pi.Tasks) == 0 {
			continue
		}
		out.Projects = append(out.Projects, pi)
	}
}

func hasRootTask(m *workspace.Model, name string) bool {
	for _, t := range m.RootTasks() {
		if t == name {
			return true
		}
	}
	return false
}

func containsHash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' {
			return true
		}
	}
	return false
}

func projectNames(m *workspace.Model) []string {
	out := make([]string, 0, len(m.Projects))
	for _, p := range m.Projects {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
