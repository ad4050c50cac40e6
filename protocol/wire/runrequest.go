package wire

// RunRequest is what vxd's runTasks hands a child `vx run --input -` on
// its stdin: the selection as typed values, so no agent string is ever
// parsed as a command-line word. The child answers on stdout with a
// RunSummary.
type RunRequest struct {
	// Tasks are task names (build) or task ids (web#build), at least one.
	Tasks []string `json:"tasks"`
	// Filters select projects as vx run --filter does.
	Filters []string `json:"filters,omitempty"`
	// Affected selects the projects changed against AffectedRef ("" is the
	// merge base with the default branch) and their dependents.
	Affected    bool   `json:"affected,omitempty"`
	AffectedRef string `json:"affectedRef,omitempty"`
	// Force ignores cache hits.
	Force bool `json:"force,omitempty"`
	// Command is the equivalent vx run command line, recorded as the run's
	// command in the history (masked); it is never parsed.
	Command []string `json:"command,omitempty"`
}

// MaxRunRequestBytes bounds a RunRequest a child reads.
const MaxRunRequestBytes = 1 << 20
