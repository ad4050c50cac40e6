// Package vxd is vxd's command line: serve, start, stop, status, token, open.
// It shares vx's flag parser and renderers (package cli/cmdline) and adds what only
// the daemon links: its server, its MCP catalog's adoption tools, and the
// websocket of vxd status --watch.
package vxd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/server"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// program is vxd's command line.
var program = cmdline.Program{
	Name:  "vxd",
	About: "the per-workspace vx daemon (MCP over loopback HTTP)",
	Commands: []cmdline.Subcommand{
		{Name: "serve", Summary: "run the daemon in the foreground", Run: serveVerb},
		{Name: "start", Summary: "start the daemon in the background (idempotent; returns when ready)", Run: startVerb},
		{Name: "stop", Summary: "stop the daemon", Run: stopVerb},
		{Name: "status", Summary: "is it up: workspace, pid, port, version, uptime, sessions, memory, last run", Run: statusVerb},
		{Name: "token", Summary: "print the bearer token (to configure a browser-based agent)", Run: tokenVerb},
		{Name: "open", Summary: "print the status page's login link, and open it in a browser when there is one", Run: openVerb},
	},
}

// Run is the vxd command line. It returns the process exit code.
func Run(ctx context.Context, argv []string, s *cmdline.IO) int { return program.Run(ctx, argv, s) }

func vxdRoot(s *cmdline.IO, a *cmdline.Args) (string, error) {
	dir := s.WorkingDir()
	if a.Has("root") {
		dir = a.Str("root")
	}
	return workspace.FindRoot(dir)
}

func serveVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, _, help, err := cmdline.Command(s, cmdline.Verb{Prog: "vxd", Name: "serve", Synopsis: "serve [flags]", Flags: map[string]cmdline.Spec{
		"root":         {Kind: cmdline.Value, Arg: "DIR", Help: "the workspace (default: found from the current directory)"},
		"idle-timeout": {Kind: cmdline.Value, Arg: "DURATION", Help: "stop after this long with no session or request (default 30m; 0 never)"},
		"log-level":    {Kind: cmdline.Value, Arg: "LEVEL", Help: "debug, info, warn or error (default info)"},
		"session-idle": {Kind: cmdline.Value, Arg: "DURATION", Help: "end an MCP session with no request and no open stream for this long (default 30m; 0 never)"},
		"port":         portSpec,
	}}, argv)
	if help || err != nil {
		return err
	}
	root, err := vxdRoot(s, a)
	if err != nil {
		return err
	}
	idle := 30 * time.Minute
	if a.Has("idle-timeout") {
		if idle, err = time.ParseDuration(a.Str("idle-timeout")); err != nil || idle < 0 {
			return cmdline.UsageError(fmt.Sprintf("--idle-timeout %q is not a duration (use e.g. 30m, 2h, or 0 to never stop)", a.Str("idle-timeout")))
		}
		if idle == 0 {
			idle = -1
		}
	} else if v := os.Getenv("VXD_IDLE_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			idle = d
		}
	}
	sessionIdle, err := durationFlag(a, "session-idle", "VXD_SESSION_IDLE")
	if err != nil {
		return err
	}
	port, err := portFlag(a)
	if err != nil {
		return err
	}
	lvl := zerolog.InfoLevel
	if a.Has("log-level") {
		if lvl, err = zerolog.ParseLevel(a.Str("log-level")); err != nil || a.Str("log-level") == "" {
			return cmdline.UsageError(fmt.Sprintf("--log-level %q is not a level (use debug, info, warn or error)", a.Str("log-level")))
		}
	}
	if err := os.MkdirAll(layout.Daemon(root), 0o700); err != nil {
		return err
	}
	logf, err := server.OpenLog(root)
	if err != nil {
		return err
	}
	defer logf.Close()
	log := zerolog.New(logf).Level(lvl).With().Timestamp().Int("pid", os.Getpid()).Logger()
	vx := ""
	if exe, err := os.Executable(); err == nil {
		vx = filepath.Join(filepath.Dir(exe), "vx")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = server.Serve(ctx, server.Options{Root: root, IdleTimeout: idle, SessionIdle: sessionIdle, Port: port, VX: vx, Logger: log,
		Ready: func(d *wire.Discovery) {
			fmt.Fprintf(s.Err, "vxd %s serving %s at http://127.0.0.1:%d%s (pid %d)\n", d.Version, d.Root, d.Port, wire.MCPPath, d.PID)
		}})
	if errors.Is(err, server.ErrRunning) {
		return fmt.Errorf("%w: %s (see `vxd status`)", err, root)
	}
	return err
}

// command is the preamble of the vxd verbs that take --root and no
// arguments: v's flags, then the workspace's root. root is "" when the
// verb is done: --help answered (err nil), or a refusal.
func command(s *cmdline.IO, v cmdline.Verb, argv []string) (a *cmdline.Args, root string, err error) {
	flags := map[string]cmdline.Spec{"root": {Kind: cmdline.Value, Arg: "DIR", Help: "the workspace (default: found from the current directory)"}}
	maps.Copy(flags, v.Flags)
	v.Prog, v.Flags, v.NoArgs = "vxd", flags, true
	a, _, help, err := cmdline.Command(s, v, argv)
	if help || err != nil {
		return nil, "", err
	}
	if root, err = vxdRoot(s, a); err != nil {
		return nil, "", err
	}
	return a, root, nil
}

func startVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, root, err := command(s, cmdline.Verb{Name: "start", Synopsis: "start [flags]", Flags: map[string]cmdline.Spec{"port": portSpec}}, argv)
	if root == "" {
		return err
	}
	port, err := portFlag(a)
	if err != nil {
		return err
	}
	c := &client.Client{Root: root, Version: version.Version, Port: port, Notice: s.Err}
	url, _, err := c.Ensure(ctx, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "vxd is serving %s at %s%s\n", root, url, wire.MCPPath)
	return nil
}

func stopVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	_, root, err := command(s, cmdline.Verb{Name: "stop", Synopsis: "stop [flags]"}, argv)
	if root == "" {
		return err
	}
	stopped, err := (&client.Client{Root: root}).Stop(ctx)
	if err != nil {
		return err
	}
	if stopped {
		fmt.Fprintf(s.Out, "vxd stopped for %s\n", root)
	} else {
		fmt.Fprintf(s.Out, "no vxd was running for %s\n", root)
	}
	return nil
}

func tokenVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	_, root, err := command(s, cmdline.Verb{Name: "token", Synopsis: "token [flags]"}, argv)
	if root == "" {
		return err
	}
	c := &client.Client{Root: root}
	_, d, err := c.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out, d.Token)
	return nil
}

func statusVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, root, err := command(s, cmdline.Verb{Name: "status", Synopsis: "status [--format text|json] [--watch] [flags]",
		Flags: map[string]cmdline.Spec{
			"format": {Kind: cmdline.Value, Arg: "text|json", Help: "output format"},
			"json":   {Help: "the same as --format json"},
			"watch":  {Help: "redraw the status live from the daemon's event feed"},
		},
		Check: func(a *cmdline.Args) error { _, err := statusFormat(a); return err }}, argv)
	if root == "" {
		return err
	}
	format, _ := statusFormat(a) // checked above
	c := &client.Client{Root: root}
	if a.Bool("watch") {
		return watchStatus(ctx, s, c)
	}
	st, _, err := c.Status(ctx)
	if err != nil {
		if client.IsNotRunning(err) {
			return notRunning(s, root, format, err)
		}
		return err
	}
	if format == "json" {
		return cmdline.WriteJSON(s.Out, st)
	}
	renderStatus(s.Out, st)
	return nil
}

// notRunning says that no vxd runs for root, and, when a process holds
// the discovery file's port without proving it is the daemon, that too;
// exit code 1.
func notRunning(s *cmdline.IO, root, format string, err error) error {
	msg := fmt.Sprintf("vxd is not running for %s.", root)
	var ie *client.ImpostorError
	var ue *client.UntrustedError
	switch {
	case errors.As(err, &ie):
		msg = fmt.Sprintf("vxd is not running for %s: %s.", root, ie)
	case errors.As(err, &ue):
		msg = fmt.Sprintf("vxd is not running for %s: %s.", root, ue)
	}
	fmt.Fprintln(s.Err, msg)
	if format == "json" {
		if err := cmdline.WriteJSON(s.Out, wire.NotRunning{Workspace: root, Message: msg}); err != nil {
			return err
		}
	}
	return cmdline.ExitCode(1)
}

// statusFormat reads --format, with --json as its older spelling.
func statusFormat(a *cmdline.Args) (string, error) {
	f := a.Str("format")
	switch f {
	case "", "text", "json":
	default:
		return "", cmdline.UsageError(fmt.Sprintf("vxd status: --format %q is not a format (use text or json)", f))
	}
	if a.Bool("json") {
		if f == "text" {
			return "", cmdline.UsageError("vxd status: --json and --format text disagree; give one")
		}
		f = "json"
	}
	if f == "" {
		f = "text"
	}
	return f, nil
}

func renderStatus(w io.Writer, st *wire.Status) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("workspace", st.Workspace)
	row("pid", fmt.Sprint(st.PID))
	row("port", fmt.Sprint(st.Port))
	row("mcp", st.URL)
	row("page", st.PageURL+"  (open with ?token=$(vxd token) once)")
	row("version", st.Version)
	row("uptime", (time.Duration(st.UptimeMs) * time.Millisecond).Round(time.Second).String())
	row("sessions", fmt.Sprint(st.Sessions))
	row("requests", fmt.Sprint(st.Requests))
	row("memory", fmt.Sprintf("%.1f MiB RSS, %.1f MiB heap", float64(st.RSSBytes)/(1<<20), float64(st.HeapBytes)/(1<<20)))
	row("model", fmt.Sprintf("%d projects, %d tasks", st.Projects, st.Tasks))
	if r := st.LastReload; r != nil {
		state := "ok"
		if !r.OK {
			state = "FAILED: " + r.Error
		}
		row("last reload", fmt.Sprintf("%s (%s, %dms, %s)", cmdline.Time(r.At), r.Trigger, r.DurationMs, state))
	}
	if st.ConfigError != "" {
		row("config error", st.ConfigError+" (the last good configuration keeps serving)")
	}
	if r := st.LastRun; r != nil {
		row("last run", fmt.Sprintf("%s %s %s, %d tasks (%d cached, %d failed), %s: %s", r.RunID, cmdline.Time(r.StartedAt), r.Status, r.Tasks, r.Cached, r.Failed, cmdline.Ms(r.DurationMs), r.Command))
	} else {
		row("last run", "none recorded")
	}
	row("idle timeout", st.IdleTimeout)
	if st.Journal != "" {
		row("change journal", st.Journal)
	}
	tw.Flush()
}

// portSpec is the --port flag of serve and start.
var portSpec = cmdline.Spec{Kind: cmdline.Value, Arg: "N", Help: "listen on this port of 127.0.0.1 (default: daemon.port of vx.workspace.json, else any free port; 0 any free port)"}

// portFlag reads --port as server.Options.Port: not given 0, 0 as -1
// (any free port), else the port.
func portFlag(a *cmdline.Args) (int, error) {
	if !a.Has("port") {
		return 0, nil
	}
	n, err := strconv.Atoi(a.Str("port"))
	if err != nil || n < 0 || n > workspace.MaxPort {
		return 0, cmdline.UsageError(fmt.Sprintf("--port %q is not a port (use 1..%d, or 0 for any free port)", a.Str("port"), workspace.MaxPort))
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

// durationFlag reads a duration flag (or, without it, env) where 0 means
// never: 0 is returned as -1, and an unset flag as 0 (the default).
func durationFlag(a *cmdline.Args, flag, env string) (time.Duration, error) {
	v, from := a.Str(flag), "--"+flag
	if !a.Has(flag) {
		v, from = os.Getenv(env), env
	}
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, cmdline.UsageError(fmt.Sprintf("%s %q is not a duration (use e.g. 30m, 2h, or 0 for never)", from, v))
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}
