package vx

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/protocol/wire"
)

// runRequest is a wire.RunRequest vx run read with --input -.
type runRequest struct{ wire.RunRequest }

// readRunRequest reads vx run --input -: one JSON wire.RunRequest on stdin
// (bounded, unknown fields refused), and nothing on the command line that
// would select differently. nil without --input.
func readRunRequest(s *cmdline.IO, a *cmdline.Args) (*runRequest, error) {
	if !a.Has("input") {
		return nil, nil
	}
	if a.Str("input") != "-" {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --input %q is not a source (use --input - to read the request on stdin)", a.Str("input")))
	}
	if len(a.Pos()) > 0 {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --input - takes the tasks from the request, not the command line (got %q)", a.Pos()[0]))
	}
	for _, f := range []string{"filter", "affected", "force", "dry"} {
		if a.Has(f) {
			return nil, cmdline.UsageError(fmt.Sprintf("vx run: --%s and --input - both select; give the selection in the request", f))
		}
	}
	if f := a.Str("format"); f != "" && f != "json" {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --input - answers in JSON; --format %s does not apply", f))
	}
	if s.In == nil {
		return nil, cmdline.UsageError("vx run: --input - needs the request on stdin")
	}
	dec := json.NewDecoder(io.LimitReader(s.In, wire.MaxRunRequestBytes))
	dec.DisallowUnknownFields()
	var req runRequest
	if err := dec.Decode(&req.RunRequest); err != nil {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: the request on stdin is not a run request (%v): want one JSON object with tasks and optionally filters, affected, affectedRef, force, command", err))
	}
	if len(req.Tasks) == 0 {
		return nil, cmdline.UsageError("vx run: the request on stdin names no task (tasks is empty)")
	}
	return &req, nil
}

// apply puts the request's selection in the run's input, in place of
// the command line's.
func (r *runRequest) apply(in *ops.ExecuteInput) {
	in.Selection = r.Selection
	in.Command = r.Command
	if len(in.Command) == 0 {
		in.Command = append([]string{"run", "--"}, r.Tasks...)
	}
}
