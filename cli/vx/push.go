package vx

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/platformpush"
	"github.com/vzn/vx/daemon/workspace"
)

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
	t, ok, err := platformpush.ForModel(m, s.Environment())
	if !ok {
		return fmt.Errorf("this workspace does not push to a platform: set platform.url and platform.workspace in %s (or %s and %s)",
			workspace.ConfigFile, platformpush.EnvURL, platformpush.EnvWorkspace)
	}
	if err != nil {
		return fmt.Errorf("%s", mask(err.Error()))
	}
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
