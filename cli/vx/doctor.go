package vx

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// doctorVerb is vx doctor: what stops vx working here, each with its fix;
// exit 1 when something does.
func doctorVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	_, format, e, err := question(s, cmdline.Verb{Name: "doctor", Synopsis: "doctor [flags]", Answers: true}, argv, anyEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	root := e.Root
	self, _ := os.Executable()
	out, err := ops.Doctor(ctx, e, ops.DoctorInput{Version: version.Version, VX: self, Launcher: os.Getenv(ops.NPMLauncherEnv),
		Probe: func(ctx context.Context) (*wire.Status, bool, error) {
			st, _, err := (&client.Client{Root: root}).Status(ctx)
			return st, client.IsNotRunning(err), err
		}})
	if err := answer(s, nil, format, out, err, renderDoctor); err != nil {
		return err
	}
	if !out.OK {
		return cmdline.ExitCode(1)
	}
	return nil
}

func renderDoctor(w io.Writer, o *ops.DoctorOutput) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, c := range o.Checks {
		mark := map[string]string{ops.CheckOK: "ok", ops.CheckProblem: "PROBLEM", ops.CheckSkipped: "skipped"}[c.Status]
		fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", c.Fix)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\nMCP client configuration (.mcp.json in %s):\n%s\n", o.Root, o.MCPConfig)
	if o.OK {
		fmt.Fprintln(w, "\nnothing stops vx here")
	} else {
		n := 0
		for _, c := range o.Checks {
			if c.Status == ops.CheckProblem {
				n++
			}
		}
		fmt.Fprintf(w, "\n%d problem(s): vx doctor exits 1\n", n)
	}
}
