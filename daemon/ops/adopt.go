package ops

import (
	"context"

	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// LockOutput is what vx lock recorded.
type LockOutput struct {
	// File is the lock written (or left as it was).
	File string `json:"file"`
	// Tasks is how many task definitions it records.
	Tasks int `json:"tasks"`
	// Changed is false when the file already said exactly this.
	Changed bool `json:"changed"`
}

// Lock records every task definition of the workspace in vx.lock (secrets
// masked), rewriting it only when it changed.
func Lock(ctx context.Context, e *Env) (*LockOutput, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	n, changed, err := lockfile.Write(m, e.Masker)
	if err != nil {
		return nil, err
	}
	return &LockOutput{File: m.Root + "/" + lockfile.Name, Tasks: n, Changed: changed}, nil
}

// CheckLock compares the workspace's task definitions with vx.lock: each
// drift with its locked and current value (secrets masked), exitCode 1 on
// drift.
func CheckLock(ctx context.Context, e *Env) (*lockfile.CheckResult, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	return lockfile.Check(m, e.Masker)
}

// Init modes: what happens to an existing vx.workspace.json.
const (
	initKeep  = "keep"
	InitForce = "force"
)

// InitInput is vx init and the planInit tool.
type InitInput struct {
	// Mode is InitKeep (the default, "") to keep an existing
	// vx.workspace.json, or InitForce to replace it.
	Mode InitMode `json:"mode,omitempty" jsonschema:"keep (default): an existing vx.workspace.json is kept; force: plan replacing it" flag:"force" help:"replace an existing vx.workspace.json"`
	// Sandbox is "" (no sandbox proposed) or the mode every migrated
	// task's sandbox is proposed in.
	Sandbox string `json:"sandbox,omitempty" jsonschema:"propose a sandbox for every task: report (nothing denied; what a task writes outside its outputs is recorded, caching unchanged) or enforce; none by default" flag:"sandbox" arg:"MODE" help:"propose a sandbox for every task: report or enforce (none by default)"`
	// Dir is where vx is adopted: the command line's directory, vxd's
	// workspace root.
	Dir string `json:"-"`
	// Environ is where secret variables without an inline value are read,
	// to mask them in the plan; nil is the process's own.
	Environ []string `json:"-"`
	// RunNx lets the plan run the repository's own Nx to list the
	// targets its plugins infer: vx init on the command line does; the
	// planInit tool, which runs no code of the repository, does not.
	RunNx bool `json:"-"`
}

func (in InitInput) options() (*migrate.Options, error) {
	switch in.Mode {
	case "", initKeep, InitForce:
	default:
		return nil, opkit.Refuse("mode", "%q is not a mode (use %q to keep an existing vx.workspace.json or %q to replace it)", in.Mode, initKeep, InitForce)
	}
	switch in.Sandbox {
	case "", wire.SandboxReport, wire.SandboxEnforce:
	default:
		return nil, opkit.Refuse("sandbox", "%q is not a sandbox mode (use %q or %q)", in.Sandbox, wire.SandboxReport, wire.SandboxEnforce)
	}
	return &migrate.Options{Force: string(in.Mode) == InitForce, Environ: in.Environ, Sandbox: in.Sandbox, RunNx: in.RunNx}, nil
}

// PlanInit proposes vx.workspace.json (and vx.project.json files) from
// turbo.json, nx.json/project.json or package.json workspaces. Nothing is
// written.
func PlanInit(ctx context.Context, in InitInput) (*migrate.Plan, error) {
	opts, err := in.options()
	if err != nil {
		return nil, err
	}
	return migrate.PlanInit(ctx, in.Dir, opts)
}

// InitOutput is the plan vx init applied and the files it wrote.
type InitOutput struct {
	Plan    *migrate.Plan `json:"plan"`
	Written []string      `json:"written"`
}

// Init plans as PlanInit does and writes the plan's files.
func Init(ctx context.Context, in InitInput) (*InitOutput, error) {
	plan, err := PlanInit(ctx, in)
	if err != nil {
		return nil, err
	}
	opts, _ := in.options()
	written, err := migrate.Apply(plan, plan.Root, opts)
	if err != nil {
		return nil, err
	}
	return &InitOutput{Plan: plan, Written: written}, nil
}
