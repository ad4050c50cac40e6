package vx

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/protocol/wire"
)

// cacheStatusVerb is `vx cache status`: a live check of the remote cache.
// It exits 1 when a configured remote is not usable.
func cacheStatusVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	_, format, e, err := question(s, cmdline.Verb{Name: "cache status", Synopsis: "cache status [flags]", Answers: true, NoArgs: true}, argv, opEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	out, err := ops.CacheStatus(ctx, e)
	if err := answer(s, nil, format, out, err, renderRemoteStatus); err != nil {
		return err
	}
	if out.Configured && !(out.Reachable && out.Authorized && out.Enabled && out.Error == "") {
		return cmdline.ExitCode(1)
	}
	return nil
}

func renderRemoteStatus(w io.Writer, o *wire.RemoteStatus) {
	if !o.Configured {
		fmt.Fprintln(w, o.Message)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("remote cache", remoteText(o))
	row("namespace", o.Namespace+" (from "+o.NamespaceSource+")")
	if o.Error != "" {
		row("error", o.Error)
	}
	if o.Checked {
		row("reachable", yesNo(o.Reachable))
		row("authorized", yesNo(o.Authorized))
		row("enabled", yesNo(o.Enabled))
		if o.Reachable {
			row("round trip", fmt.Sprintf("%dms", o.RTTMs))
		}
		if o.Message != "" {
			row("note", o.Message)
		}
	}
	if o.LastRunStatus != "" {
		row("last run", o.LastRunStatus)
	}
	tw.Flush()
}

// remoteText is the one-line form vx info shows.
func remoteText(o *wire.RemoteStatus) string {
	if o == nil || !o.Configured {
		return "none"
	}
	var parts []string
	parts = append(parts, o.URL, "team "+o.Team)
	if o.ReadOnly {
		parts = append(parts, "read-only")
	}
	if o.Signature {
		parts = append(parts, "signature on")
	} else {
		parts = append(parts, "signature off")
	}
	if !o.TokenSet {
		parts = append(parts, "no token")
	}
	if o.LastRunStatus != "" {
		parts = append(parts, "last run: "+o.LastRunStatus)
	}
	if o.Error != "" {
		parts = append(parts, "not used: "+o.Error)
	}
	return strings.Join(parts, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
