package vx

import (
	"fmt"
	"io"
	"strings"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// sandboxText is vx show's line for a resolved sandbox.
func sandboxText(sb *workspace.SandboxDef) string {
	net := "network allowed"
	if !sb.Network {
		net = "no TCP connect/bind"
	}
	write := "outputs and its temp dir"
	if len(sb.Write) > 0 {
		write += ", " + strings.Join(sb.Write, ", ")
	}
	req := ""
	if sb.Required {
		req = ", required"
	}
	return fmt.Sprintf("%s%s; writes: %s; %s", sb.Mode, req, write, net)
}

// sandboxVerdictText is vx info's line for the host's sandbox runtime.
func sandboxVerdictText(v wire.SandboxVerdict) string {
	var s string
	switch {
	case v.Landlock:
		s = fmt.Sprintf("Landlock ABI %d enforces %s", v.ABI, strings.Join(v.Enforced, ", "))
	case v.Observer == "":
		s = "no sandbox: sandboxed tasks run unconfined, a required one refuses the run"
	default:
		s = "no Landlock: sandboxed tasks run unconfined"
	}
	if v.Observer != "" {
		s += "; violations via " + v.Observer
	}
	if v.Reason != "" {
		s += " (" + v.Reason + ")"
	}
	return fmt.Sprintf("%s; %d task(s) declare a sandbox", s, v.Tasks)
}

// printViolations lists each task's sandbox violations under vx last's table.
func printViolations(w io.Writer, tasks []history.Execution) {
	for _, t := range tasks {
		if len(t.SandboxViolations) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nsandbox: %s\n", t.TaskID)
		for _, v := range t.SandboxViolations {
			fmt.Fprintf(w, "  %s\n", v)
		}
	}
}
