package vx

import (
	"os"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/cli/live"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// checkUIFlag refuses a --ui that is neither tui nor stream, before
// anything loads.
func checkUIFlag(ui *string) error {
	if ui == nil {
		return nil
	}
	if err := workspace.CheckUI(*ui); err != nil {
		return cmdline.UsageError("vx run: --" + err.Error())
	}
	return nil
}

// liveView is the live view a run shows, or nil for task lines alone:
// --ui, else the workspace's ui, else tui; and tui draws only on a
// terminal (stdout, with the summary in text) that is not dumb and not
// CI's.
func liveView(s *cmdline.IO, flag *string, m *workspace.Model, format string) *live.View {
	ui := m.Config.UI
	if flag != nil {
		ui = *flag
	}
	if ui == workspace.UIStream || format == "json" {
		return nil
	}
	env := environMap(s)
	if ci := env["CI"]; ci != "" && ci != "false" && ci != "0" {
		return nil
	}
	if t := env["TERM"]; t == "" || t == "dumb" {
		return nil
	}
	f, ok := s.Out.(*os.File)
	if !ok {
		return nil
	}
	if _, _, ok := live.Size(f); !ok {
		return nil
	}
	return live.New(f, func() (int, int) {
		cols, rows, ok := live.Size(f)
		if !ok || cols < 1 || rows < 1 {
			return 80, 24
		}
		return cols, rows
	})
}

// withView routes a run's task lines and events through v as well (nil:
// out unchanged).
func withView(out runner.Output, v *live.View) runner.Output {
	if v == nil {
		return out
	}
	out.W = v
	next := out.Events
	out.Events = func(e wire.Event) {
		v.Event(e)
		if next != nil {
			next(e)
		}
	}
	out.Progress = func(f *runner.Forecast) { v.Progress(f) }
	return out
}
