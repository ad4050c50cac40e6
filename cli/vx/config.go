package vx

import (
	"context"
	"io"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
)

// configVerb is vx config: getWorkspaceConfig, vx.workspace.json as
// written with secret values masked.
func configVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	_, format, e, err := question(s, cmdline.Verb{Name: "config", Synopsis: "config [--format text|json]", Answers: true, NoArgs: true,
		About: "\nPrints vx.workspace.json as written (comments kept), secret values masked. vx show TARGET is a task's resolved configuration.\n"}, argv, opEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	out, err := ops.WorkspaceConfig(ctx, e, ops.WorkspaceConfigInput{})
	return answer(s, nil, format, out, err, func(w io.Writer, o *ops.WorkspaceConfigOutput) {
		io.WriteString(w, o.Text)
	})
}
