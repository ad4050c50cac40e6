package vx

import (
	"fmt"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/protocol/wire"
)

// readRunRequest reads vx run --input -: one JSON wire.RunRequest on stdin
// (ops.ReadRunRequest), and nothing on the command line that would select
// differently. nil without --input.
func readRunRequest(s *cmdline.IO, f *runFlags) (*wire.RunRequest, error) {
	if f.Input == nil {
		return nil, nil
	}
	if *f.Input != "-" {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --input %q is not a source (use --input - to read the request on stdin)", *f.Input))
	}
	if len(f.Tasks) > 0 {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --input - takes the tasks from the request, not the command line (got %q)", f.Tasks[0]))
	}
	if sel := f.selecting(); sel != "" {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --%s and --input - both select; give the selection in the request", sel))
	}
	if f.Format != "" && f.Format != "json" {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --input - answers in JSON; --format %s does not apply", f.Format))
	}
	if s.In == nil {
		return nil, cmdline.UsageError("vx run: --input - needs the request on stdin")
	}
	req, err := ops.ReadRunRequest(s.In)
	if err != nil {
		return nil, planRefusal(err)
	}
	return req, nil
}

// Plan and apply from the command line: vx run --dry=json writes a plan
// with its selection, prerequisites and expiry; vx run --plan FILE runs
// exactly that plan after checking that nothing it was made against has
// moved and that it has not expired.

// readPlanFile reads vx run --plan FILE, refusing a selection beside it
// and a file that is not a plan vx run --dry=json wrote. nil without
// --plan.
func readPlanFile(f *runFlags) (*wire.Plan, error) {
	if f.Plan == nil {
		return nil, nil
	}
	if len(f.Tasks) > 0 {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --plan runs the plan's tasks, not the command line's (got %q)", f.Tasks[0]))
	}
	sel := f.selecting()
	if sel == "" && f.Input != nil {
		sel = "input"
	}
	if sel != "" {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --%s and --plan both select; the plan holds its selection", sel))
	}
	p, err := plans.ReadFile(*f.Plan)
	if err != nil {
		return nil, planRefusal(err)
	}
	return p, nil
}
