package wire

// PlanPrerequisites is what a plan was made against: if any of it differs
// when the plan is applied, the plan is refused and nothing runs.
type PlanPrerequisites struct {
	// ConfigFiles maps each file the workspace configuration was read from
	// (vx.workspace.json, vx.project.json, package.json, pnpm-workspace.yaml),
	// relative to the root, to its content hash.
	ConfigFiles map[string]string `json:"configFiles"`
	// Lock is vx.lock's content hash, "" when the workspace has none.
	Lock string `json:"lock"`
	// GitHead is the commit checked out, "" outside a git repository.
	GitHead string `json:"gitHead"`
	// GitDirty hashes the uncommitted state (each changed or untracked
	// path with its content), "" when the tree is clean; DirtyFiles counts
	// those paths.
	GitDirty   string `json:"gitDirty"`
	DirtyFiles int    `json:"dirtyFiles"`
	// TaskKeys maps each planned task to its cache key.
	TaskKeys map[string]string `json:"taskKeys"`
}
