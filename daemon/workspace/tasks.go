package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vzn/vx/internal/suggest"
)

// RootProject is the project half of a root task id ("//#lint").
const RootProject = "//"

// TaskID joins a project and a task name.
func TaskID(project, task string) string { return project + "#" + task }

// SplitTaskID splits "project#task" at its last '#'. ok is false when
// either half is missing.
func SplitTaskID(id string) (project, task string, ok bool) {
	i := strings.LastIndex(id, "#")
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// TaskNames lists every task name known anywhere in the workspace:
// configured, overridden in a project, or a package.json script.
func (m *Model) TaskNames() []string {
	m.namesOnce.Do(m.indexTaskNames)
	return m.taskNames
}

func (m *Model) indexTaskNames() {
	set := map[string]bool{}
	for name := range m.Config.Tasks {
		if p, t, ok := SplitTaskID(name); ok {
			_ = p
			set[t] = true
			continue
		}
		set[name] = true
	}
	for ref := range m.inferred {
		set[ref.task] = true
	}
	for _, p := range m.Projects {
		for _, sc := range p.Scripts {
			set[sc.Name] = true
		}
		for name := range p.Overrides {
			set[name] = true
		}
	}
	m.taskSet = set
	m.taskNames = sortedKeys(set)
}

// KnownTask reports whether name is a task anywhere in the workspace.
func (m *Model) KnownTask(name string) bool {
	m.namesOnce.Do(m.indexTaskNames)
	return m.taskSet[name]
}

// TaskCount is the number of tasks in the workspace: each project's
// defined tasks (project × task name) and the root tasks.
func (m *Model) TaskCount() int {
	n := len(m.RootTasks())
	for _, p := range m.Projects {
		for _, name := range m.TaskNames() {
			if _, defined := m.Resolve(p.Name, name); defined {
				n++
			}
		}
	}
	return n
}

// RootTasks lists the configured root task names ("//#lint" → "lint").
func (m *Model) RootTasks() []string {
	var out []string
	for name := range m.Config.Tasks {
		if p, t, ok := SplitTaskID(name); ok && p == RootProject {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// taskLayers calls take with each configuration layer of project p's
// task, lowest first: a plugin's inferred task, the workspace's task
// defaults, its "project#task" entry, the project's own overrides.
func (m *Model) taskLayers(p *Project, task string, take func(TaskConfig)) {
	if it, ok := m.inferred[taskRef{p.Name, task}]; ok {
		take(it.cfg)
	}
	if c, ok := m.Config.Tasks[task]; ok {
		take(c)
	}
	if m.scopedTasks() {
		if c, ok := m.Config.Tasks[TaskID(p.Name, task)]; ok {
			take(c)
		}
	}
	if c, ok := p.Overrides[task]; ok {
		take(c)
	}
}

// scopedTasks reports whether the configuration defines a task for one
// project ("web#build"): taskLayers, asked of every project's every task
// by a run, then looks each up, a string joined for each.
func (m *Model) scopedTasks() bool {
	m.scopedOnce.Do(func() {
		for name := range m.Config.Tasks {
			if strings.Contains(name, "#") {
				m.scoped = true
				return
			}
		}
	})
	return m.scoped
}

// Resolve returns the definition of task in project (RootProject for a
// root task). defined is false when neither the workspace, the project nor
// its scripts know the task; the definition is then a no-op.
func (m *Model) Resolve(project, task string) (def TaskDef, defined bool) {
	var tc TaskConfig
	var scripts Scripts
	if project == RootProject {
		c, ok := m.Config.Tasks[TaskID(RootProject, task)]
		if !ok {
			return TaskDef{}, false
		}
		tc, defined, scripts = c, true, m.RootScripts
	} else {
		p := m.byName[project]
		if p == nil {
			return TaskDef{}, false
		}
		m.taskLayers(p, task, func(c TaskConfig) {
			if defined {
				tc = tc.merge(c)
			} else {
				tc, defined = c, true
			}
		})
		scripts = p.Scripts
		if _, ok := scripts.Get(task); ok {
			defined = true
		}
	}
	def = TaskDef{Cache: true, DependsOn: []string{}, Inputs: []string{}, Outputs: []string{}, Env: []string{}, PassEnv: []string{}}
	switch {
	case tc.Command != nil && m.inferred[taskRef{project, task}].cfg.Command == tc.Command:
		def.Command, def.CommandSource = *tc.Command, "plugin"
	case tc.Command != nil:
		def.Command, def.CommandSource = *tc.Command, "config"
	default:
		if cmd, _ := scripts.Get(task); cmd != "" {
			def.Command, def.CommandSource = cmd, "package.json"
		}
	}
	if tc.DependsOn != nil {
		def.DependsOn = append(def.DependsOn, *tc.DependsOn...)
	}
	if tc.Inputs != nil {
		def.Inputs = append(def.Inputs, *tc.Inputs...)
		if project != RootProject {
			def.Inputs = climbedInputs(m.byName[project].Dir, def.Inputs)
		}
	}
	if tc.Outputs != nil {
		def.Outputs = append(def.Outputs, *tc.Outputs...)
	}
	if tc.Env != nil {
		def.Env = append(def.Env, *tc.Env...)
	}
	if tc.PassEnv != nil {
		def.PassEnv = append(def.PassEnv, *tc.PassEnv...)
	}
	if tc.Cache != nil {
		def.Cache = *tc.Cache
	}
	if tc.Timeout != nil {
		def.Timeout, _ = parseTimeout(*tc.Timeout)
		def.TimeoutText = *tc.Timeout
	}
	if tc.Exec != nil && len(tc.Exec.Env) > 0 {
		def.ExecEnv = tc.Exec.Env
	}
	def.Sandbox = m.Config.Sandbox.merge(tc.Sandbox).resolve()
	if it, ok := m.inferred[taskRef{project, task}]; ok {
		def.InferredFrom = &it.origin
	}
	return def, defined
}

// Node is one task of a planned run.
type Node struct {
	ID      string   `json:"taskId"`
	Project string   `json:"project"`
	Task    string   `json:"task"`
	Dir     string   `json:"dir"` // relative to the root ("" for root tasks)
	Def     TaskDef  `json:"definition"`
	Deps    []*Node  `json:"-"`
	DepIDs  []string `json:"dependsOn"`
	Index   int      `json:"-"` // position in Graph.Nodes (topological)
	Entry   bool     `json:"-"` // asked for directly rather than reached by dependsOn
	Reason  string   `json:"-"` // why the project was selected (affected)
}

// Graph is the task graph of a run, in topological order.
type Graph struct {
	Nodes []*Node
	ByID  map[string]*Node
}

// Executable lists the nodes that run a command.
func (g *Graph) Executable() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if !n.Def.NoOp() {
			out = append(out, n)
		}
	}
	return out
}

// Build makes the task graph for tasks over the selected projects (nil
// selects all). A task argument may be a name or a "project#task" id.
func (m *Model) Build(tasks []string, selected []*Project, includeRoot bool) (*Graph, error) {
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no task given: name one or more tasks, e.g. `vx run build` (tasks here: %s)", strings.Join(m.TaskNames(), ", "))
	}
	if selected == nil {
		selected = m.Projects
	}
	g := &Graph{ByID: map[string]*Node{}}
	b := &builder{m: m, g: g, state: map[string]int{}}
	for _, t := range tasks {
		if t == "" {
			return nil, fmt.Errorf("an empty task name was given")
		}
		if strings.Contains(t, "#") {
			p, name, ok := SplitTaskID(t)
			if !ok {
				return nil, fmt.Errorf("task id %q is missing a half: use project#task, e.g. web#build", t)
			}
			if p != RootProject && m.byName[p] == nil {
				return nil, fmt.Errorf("task id %q: no project named %q%s", t, p, closeHint(p, m.projectNames()))
			}
			if _, defined := m.Resolve(p, name); !defined {
				return nil, fmt.Errorf("task id %q: project %s has no task %q%s%s", t, p, name, closeHint(name, m.TaskNames()), m.failedPluginsHint())
			}
			if _, err := b.visit(p, name, nil, true); err != nil {
				return nil, err
			}
			continue
		}
		rootDefined := false
		if _, ok := m.Config.Tasks[TaskID(RootProject, t)]; ok {
			rootDefined = true
		}
		if !m.KnownTask(t) && !rootDefined {
			return nil, fmt.Errorf("unknown task %q%s%s", t, closeHint(t, m.TaskNames()), m.failedPluginsHint())
		}
		for _, p := range selected {
			if _, err := b.visit(p.Name, t, nil, true); err != nil {
				return nil, err
			}
		}
		if includeRoot && rootDefined {
			if _, err := b.visit(RootProject, t, nil, true); err != nil {
				return nil, err
			}
		}
	}
	for i, n := range g.Nodes {
		n.Index = i
	}
	return g, nil
}

type builder struct {
	m     *Model
	g     *Graph
	state map[string]int // 1 visiting, 2 done
	stack []string
}

func (b *builder) visit(project, task string, from *Node, entry bool) (*Node, error) {
	id := TaskID(project, task)
	switch b.state[id] {
	case 1:
		i := indexOf(b.stack, id)
		return nil, fmt.Errorf("task dependency cycle: %s%s", strings.Join(append(append([]string{}, b.stack[i:]...), id), " → "), b.m.inferredNotes(b.stack[i:]))
	case 2:
		n := b.g.ByID[id]
		if entry {
			n.Entry = true
		}
		return n, nil
	}
	b.state[id] = 1
	b.stack = append(b.stack, id)
	def, _ := b.m.Resolve(project, task)
	label := taskLabel{b.m, project, task} // what its dependsOn's errors name
	n := &Node{ID: id, Project: project, Task: task, Def: def, Entry: entry, DepIDs: []string{}}
	if project != RootProject {
		n.Dir = b.m.byName[project].Dir
	}
	add := func(d *Node) {
		for _, have := range n.Deps {
			if have == d {
				return
			}
		}
		n.Deps = append(n.Deps, d)
		n.DepIDs = append(n.DepIDs, d.ID)
	}
	for _, ref := range def.DependsOn {
		switch {
		case strings.HasPrefix(ref, "^"):
			name := ref[1:]
			if err := b.checkRef(label, ref, name); err != nil {
				return nil, err
			}
			if project == RootProject {
				continue
			}
			for _, dp := range b.m.byName[project].Deps {
				d, err := b.visit(dp, name, n, false)
				if err != nil {
					return nil, err
				}
				add(d)
			}
		case strings.Contains(ref, "#"):
			p, name, ok := SplitTaskID(ref)
			if !ok {
				return nil, fmt.Errorf("task %s: dependsOn %q is missing a half (use project#task)", label, ref)
			}
			if p != RootProject && b.m.byName[p] == nil {
				return nil, fmt.Errorf("task %s: dependsOn %q names project %q, which is not in the workspace%s", label, ref, p, closeHint(p, b.m.projectNames()))
			}
			if _, defined := b.m.Resolve(p, name); !defined && !b.m.KnownTask(name) {
				return nil, fmt.Errorf("task %s: dependsOn %q names task %q, which no project defines%s", label, ref, name, closeHint(name, b.m.TaskNames()))
			}
			d, err := b.visit(p, name, n, false)
			if err != nil {
				return nil, err
			}
			add(d)
		default:
			if err := b.checkRef(label, ref, ref); err != nil {
				return nil, err
			}
			d, err := b.visit(project, ref, n, false)
			if err != nil {
				return nil, err
			}
			add(d)
		}
	}
	b.stack = b.stack[:len(b.stack)-1]
	b.state[id] = 2
	b.g.ByID[id] = n
	b.g.Nodes = append(b.g.Nodes, n)
	return n, nil
}

// checkRef refuses a dependsOn ref of the task label names whose task
// name is no task anywhere.
func (b *builder) checkRef(label taskLabel, ref, name string) error {
	if name == "" {
		return fmt.Errorf("task %s: dependsOn %q names no task", label, ref)
	}
	if !b.m.KnownTask(name) {
		return fmt.Errorf("task %s: dependsOn %q names task %q, which no project defines%s", label, ref, name, closeHint(name, b.m.TaskNames()))
	}
	return nil
}

// closeHint suggests the names closest to s.
func closeHint(s string, names []string) string { return suggest.Close(s, names) }

// CloseHint is closeHint for other packages.
func CloseHint(s string, names []string) string { return suggest.Close(s, names) }
