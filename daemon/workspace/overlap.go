package workspace

import (
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// OutputOverlap is two tasks of one project that may run at the same time
// (neither depends on the other, directly or through other tasks) whose
// declared outputs may name the same files: run at once, each would
// overwrite what the other is writing or caching.
type OutputOverlap struct {
	Project string    `json:"project"`
	Tasks   [2]string `json:"tasks"`   // task ids, sorted
	Outputs [2]string `json:"outputs"` // the overlapping globs, in the order of Tasks
}

// OutputOverlaps lists the graph's overlapping pairs, sorted.
func (g *Graph) OutputOverlaps() []OutputOverlap {
	byDir := map[string][]*Node{}
	for _, n := range g.Nodes {
		if n.Project != RootProject && !n.Def.NoOp() && len(n.Def.Outputs) > 0 {
			byDir[n.Dir] = append(byDir[n.Dir], n)
		}
	}
	// A path between two tasks of one project leaves the project only
	// through an explicit "project#task" dependsOn back into it: "^task"
	// edges follow package dependencies, which have no cycles. Without
	// such refs, the search stays inside the project.
	stayIn := !hasCrossRefs(g)
	var out []OutputOverlap
	for _, nodes := range byDir {
		for i, a := range nodes {
			for _, b := range nodes[i+1:] {
				ga, gb, ok := overlappingGlobs(a.Def.Outputs, b.Def.Outputs)
				if !ok || dependsOn(a, b, stayIn) || dependsOn(b, a, stayIn) {
					continue
				}
				o := OutputOverlap{Project: a.Project, Tasks: [2]string{a.ID, b.ID}, Outputs: [2]string{ga, gb}}
				if b.ID < a.ID {
					o.Tasks, o.Outputs = [2]string{b.ID, a.ID}, [2]string{gb, ga}
				}
				out = append(out, o)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tasks[0] != out[j].Tasks[0] {
			return out[i].Tasks[0] < out[j].Tasks[0]
		}
		return out[i].Tasks[1] < out[j].Tasks[1]
	})
	return out
}

// OutputOverlaps lists the overlapping pairs among every task of every
// project, computed once per model.
func (m *Model) OutputOverlaps() []OutputOverlap {
	m.overlapOnce.Do(func() {
		g, err := m.Build(m.TaskNames(), nil, false)
		if err == nil {
			m.overlaps = g.OutputOverlaps()
		}
	})
	return m.overlaps
}

// dependsOn reports whether a depends on b, directly or not; stayIn
// follows only edges within a's project.
func dependsOn(a, b *Node, stayIn bool) bool {
	seen := map[*Node]bool{}
	stack := []*Node{a}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range n.Deps {
			if d == b {
				return true
			}
			if seen[d] || (stayIn && d.Project != a.Project) {
				continue
			}
			seen[d] = true
			stack = append(stack, d)
		}
	}
	return false
}

// hasCrossRefs reports whether any task names another project's task
// explicitly in its dependsOn.
func hasCrossRefs(g *Graph) bool {
	for _, n := range g.Nodes {
		for _, ref := range n.Def.DependsOn {
			if p, _, ok := SplitTaskID(ref); ok && !strings.HasPrefix(ref, "^") && p != n.Project {
				return true
			}
		}
	}
	return false
}

// overlappingGlobs finds a glob of as and one of bs that may match a common
// path. Negated globs are left out: they only narrow.
func overlappingGlobs(as, bs []string) (string, string, bool) {
	for _, a := range as {
		if strings.HasPrefix(a, "!") {
			continue
		}
		for _, b := range bs {
			if !strings.HasPrefix(b, "!") && globsMayOverlap(a, b) {
				return a, b, true
			}
		}
	}
	return "", "", false
}

// globsMayOverlap reports whether two output globs (relative to one
// project, a directory standing for every file under it) may name a common
// file. It compares segment by segment: two literals must be equal, a
// literal must match a pattern; "**" or a pattern against a pattern may
// match anything from there on, and one glob ending inside the other's
// path is a directory holding it. False means they certainly do not.
func globsMayOverlap(a, b string) bool {
	sa := strings.Split(cleanGlob(a), "/")
	sb := strings.Split(cleanGlob(b), "/")
	for i := 0; i < len(sa) && i < len(sb); i++ {
		x, y := sa[i], sb[i]
		px, py := isPattern(x), isPattern(y)
		switch {
		case x == "**" || y == "**":
			return true
		case !px && !py:
			if x != y {
				return false
			}
		case px && py:
			return true
		case px:
			if ok, _ := doublestar.Match(x, y); !ok {
				return false
			}
		default:
			if ok, _ := doublestar.Match(y, x); !ok {
				return false
			}
		}
	}
	return true
}

func cleanGlob(g string) string {
	g = strings.TrimPrefix(g, "./")
	return strings.TrimSuffix(g, "/")
}

func isPattern(seg string) bool { return strings.ContainsAny(seg, "*?[{\\") }

// RunOverlaps answers the pairs a run of g's tasks needs for its lock
// groups: OutputOverlaps when one of g's tasks may share outputs with
// another task of its project, none otherwise. A run whose tasks overlap
// nothing is in no group, whatever pairs the tasks it does not run form,
// and builds no graph of every task to learn so.
func (m *Model) RunOverlaps(g *Graph) []OutputOverlap {
	if m.mayOverlap(g) {
		return m.OutputOverlaps()
	}
	return nil
}

// mayOverlap reports whether a task of g has outputs that may overlap
// another task's of its project (or its project shares its directory).
func (m *Model) mayOverlap(g *Graph) bool {
	dirs := make(map[string]int, len(m.Projects))
	for _, p := range m.Projects {
		dirs[p.Dir]++
	}
	names := m.TaskNames()
	for _, n := range g.Nodes {
		if n.Project == RootProject || n.Def.NoOp() || len(n.Def.Outputs) == 0 {
			continue
		}
		if dirs[n.Dir] > 1 {
			return true
		}
		for _, name := range names {
			if name == n.Task {
				continue
			}
			outputs, runs, ok := m.TaskOutputs(n.Project, name)
			if !ok || !runs || len(outputs) == 0 {
				continue
			}
			if _, _, ok := overlappingGlobs(n.Def.Outputs, outputs); ok {
				return true
			}
		}
	}
	return false
}

// TaskOutputs is what Resolve answers of a task's outputs (shared: not to
// be changed) and of whether it runs a command, without the rest of its
// definition: a run asks it of every task of its projects, most of which
// it does not run.
func (m *Model) TaskOutputs(project, task string) (outputs []string, runs, defined bool) {
	p := m.byName[project]
	if project == RootProject || p == nil {
		def, ok := m.Resolve(project, task)
		return def.Outputs, !def.NoOp(), ok
	}
	var out *[]string
	var cmd *string
	m.taskLayers(p, task, func(c TaskConfig) {
		override(&out, c.Outputs)
		override(&cmd, c.Command)
		defined = true
	})
	script, ok := p.Scripts.Get(task)
	defined = defined || ok
	if cmd != nil {
		runs = *cmd != ""
	} else {
		runs = script != ""
	}
	if out != nil {
		outputs = *out
	}
	return outputs, runs, defined
}
