package vx

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/platformpush"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// pushRun is the end-of-run hook: when the workspace opted into a
// platform, the run just ended is pushed (bounded; warnings only).
func pushRun(ctx context.Context, s *cmdline.IO, m *workspace.Model, sum *wire.RunSummary, mask func(string) string) {
	t, ok, err := platformpush.Resolve(m.Config.Platform, s.Environment())
	if !ok {
		return
	}
	if err != nil {
		fmt.Fprintf(s.Err, "vx: platform: %s\n", mask(err.Error()))
		return
	}
	t.ProjectDir = projectDirs(m)
	platformpush.AfterRun(ctx, m.Root, t, sum, mask, s.Err)
}

// pushFlags are vx push's flags.
type pushFlags struct {
	All bool `flag:"all" help:"also send every run of the local history the platform has not stored"`
}

var pushBinding = cmdline.Bind(reflect.TypeFor[pushFlags]())

func pushVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, _, help, err := cmdline.Command(s, cmdline.Verb{Name: "push", Synopsis: "push [--all]", NoArgs: true,
		Bind: pushBinding}, argv)
	if help || err != nil {
		return err
	}
	var f pushFlags
	if err := pushBinding.Fill(a, &f); err != nil {
		return err
	}
	m, err := loadModel(s)
	if err != nil {
		return err
	}
	mask := maskerFor(m, s).String
	t, ok, err := platformpush.Resolve(m.Config.Platform, s.Environment())
	if !ok {
		return fmt.Errorf("this workspace does not push to a platform: set platform.url and platform.workspace in %s (or %s and %s)",
			workspace.ConfigFile, platformpush.EnvURL, platformpush.EnvWorkspace)
	}
	if err != nil {
		return fmt.Errorf("%s", mask(err.Error()))
	}
	t.ProjectDir = projectDirs(m)
	var rep platformpush.Report
	if f.All {
		rep, err = platformpush.All(ctx, m.Root, t, mask, s.Err)
	} else {
		rep, err = platformpush.Flush(ctx, m.Root, t, s.Err)
	}
	fmt.Fprintf(s.Out, "pushed %d run(s) to %s (%d already there, %d kept in .vx/outbox, %d refused)\n", rep.Sent, t.URL, rep.Known, rep.Kept, rep.Rejected)
	if err != nil {
		return fmt.Errorf("%s", mask(err.Error()))
	}
	return nil
}

// projectDirs names each project's directory for the failures a push
// carries.
func projectDirs(m *workspace.Model) func(string) string {
	return func(name string) string {
		if p, ok := m.Project(name); ok {
			return p.Dir
		}
		return ""
	}
}
