package wire

// Selection is what a run selects: its tasks, the projects they run in
// (filters and affected), and whether cache hits are ignored. It is the
// one form every layer passes a run's selection in: vx run's flags fill
// it, runTasks and planTasks convert their arguments to it, a plan file
// records it, workspace.Select narrows projects by it and the runner
// runs it.
type Selection struct {
	// Tasks are task names (build) or task ids (web#build).
	Tasks []string `json:"tasks"`
	// Filters select projects as vx run --filter does.
	Filters []string `json:"filters,omitempty"`
	// Affected selects the projects changed against AffectedRef ("" is the
	// merge base with the default branch) and their dependents.
	Affected    bool   `json:"affected,omitempty"`
	AffectedRef string `json:"affectedRef,omitempty"`
	// Force ignores cache hits.
	Force bool `json:"force,omitempty"`
}

// AllProjects reports whether nothing narrows the projects.
func (s Selection) AllProjects() bool { return len(s.Filters) == 0 && !s.Affected }

// RunRequest is what vxd's runTasks hands a child `vx run --input -` on
// its stdin: the selection as typed values (at least one task), so no
// agent string is ever parsed as a command-line word. The child answers
// on stdout with a RunSummary.
type RunRequest struct {
	Selection
	// Command is the equivalent vx run command line, recorded as the run's
	// command in the history (masked); it is never parsed.
	Command []string `json:"command,omitempty"`
}

// MaxRunRequestBytes bounds a RunRequest a child reads.
const MaxRunRequestBytes = 1 << 20
