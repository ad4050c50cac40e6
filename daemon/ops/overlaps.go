package ops

import (
	"fmt"

	"github.com/vzn/vx/daemon/workspace"
)

// OverlapText is one output overlap in words, for people and notes.
func OverlapText(o workspace.OutputOverlap) string {
	return fmt.Sprintf("%s and %s may write the same files (%s, %s) and neither depends on the other: vx runs them one at a time",
		o.Tasks[0], o.Tasks[1], o.Outputs[0], o.Outputs[1])
}

// showOverlaps fills in the output overlaps among what an answer shows:
// the pairs in its projects, or the ones of its one task (or task name).
func showOverlaps(m *workspace.Model, out *ShowOutput) *ShowOutput {
	out.OutputOverlaps = []workspace.OutputOverlap{}
	shown := map[string]bool{}
	tasks := map[string]bool{}
	for _, p := range out.Projects {
		shown[p.Name] = true
		for _, t := range p.Tasks {
			tasks[t.TaskID] = true
		}
	}
	for _, o := range m.OutputOverlaps() {
		if !shown[o.Project] {
			continue
		}
		if out.Kind != "workspace" && out.Kind != "project" && !tasks[o.Tasks[0]] && !tasks[o.Tasks[1]] {
			continue
		}
		out.OutputOverlaps = append(out.OutputOverlaps, o)
	}
	return out
}
