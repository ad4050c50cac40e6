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
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
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

// rootFlag is --root, which every vxd verb takes.
type rootFlag struct {
	Root *string `flag:"root" arg:"DIR" help:"the workspace (default: found from the current directory)"`
}

// root is the workspace's root: --root's, else found from the working
// directory.
func (f *rootFlag) root(s *cmdline.IO) (string, error) {
	dir := s.WorkingDir()
	if f.Root != nil {
		dir = *f.Root
	}
	return workspace.FindRoot(dir)
}

// portFlag is the --port of serve and start.
type portFlag struct {
	Port *string `flag:"port" arg:"N" help:"listen on this port of 127.0.0.1 (default: daemon.port of vx.workspace.json, else any free port; 0 any free port)"`
}

// serveFlags are vxd serve's flags.
type serveFlags struct {
	rootFlag
	portFlag
	IdleTimeout *string `flag:"idle-timeout" arg:"DURATION" help:"stop after this long with no session or request (default 30m; 0 never)"`
	LogLevel    *string `flag:"log-level" arg:"LEVEL" help:"debug, info, warn or error (default info)"`
	SessionIdle *string `flag:"session-idle" arg:"DURATION" help:"end an MCP session with no request and no open stream for this long (default 30m; 0 never)"`
}

var serveBinding = cmdline.Bind(reflect.TypeFor[serveFlags]())

func serveVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, _, help, err := cmdline.Command(s, cmdline.Verb{Prog: "vxd", Name: "serve", Synopsis: "serve [flags]", Bind: serveBinding}, argv)
	if help || err != nil {
		return err
	}
	var f serveFlags
	if err := serveBinding.Fill(a, &f); err != nil {
		return err
	}
	root, err := f.root(s)
	if err != nil {
		return err
	}
	idle := 30 * time.Minute
	if f.IdleTimeout != nil {
		if idle, err = time.ParseDuration(*f.IdleTimeout); err != nil || idle < 0 {
			return cmdline.UsageError(fmt.Sprintf("--idle-timeout %q is not a duration (use e.g. 30m, 2h, or 0 to never stop)", *f.IdleTimeout))
		}
		if idle == 0 {
			idle = -1
		}
	} else if v := os.Getenv("VXD_IDLE_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			idle = d
		}
	}
	sessionIdle, err := durationFlag(f.SessionIdle, "session-idle", "VXD_SESSION_IDLE")
	if err != nil {
		return err
	}
	port, err := f.port()
	if err != nil {
		return err
	}
	lvl := zerolog.InfoLevel
	if f.LogLevel != nil {
		if lvl, err = zerolog.ParseLevel(*f.LogLevel); err != nil || *f.LogLevel == "" {
			return cmdline.UsageError(fmt.Sprintf("--log-level %q is not a level (use debug, info, warn or error)", *f.LogLevel))
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

// rooted is a verb's flags with --root (they embed rootFlag).
type rooted interface {
	root(s *cmdline.IO) (string, error)
}

// command is the preamble of the vxd verbs that take --root and no
// arguments: v's flags (v.Bind binds dst's type, which embeds rootFlag)
// fill dst, then the workspace's root. root is "" when the verb is done:
// --help answered (err nil), or a refusal.
func command(s *cmdline.IO, v cmdline.Verb, argv []string, dst rooted) (root string, err error) {
	v.Prog, v.NoArgs = "vxd", true
	check := v.Check
	v.Check = func(a *cmdline.Args) error {
		if err := v.Bind.Fill(a, dst); err != nil {
			return err
		}
		if check != nil {
			return check(a)
		}
		return nil
	}
	if _, _, help, err := cmdline.Command(s, v, argv); help || err != nil {
		return "", err
	}
	return dst.root(s)
}

// startFlags are vxd start's flags.
type startFlags struct {
	rootFlag
	portFlag
}

var (
	startBinding = cmdline.Bind(reflect.TypeFor[startFlags]())
	rootBinding  = cmdline.Bind(reflect.TypeFor[rootFlag]())
)

func startVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	var f startFlags
	root, err := command(s, cmdline.Verb{Name: "start", Synopsis: "start [flags]", Bind: startBinding}, argv, &f)
	if root == "" {
		return err
	}
	port, err := f.port()
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
	root, err := command(s, cmdline.Verb{Name: "stop", Synopsis: "stop [flags]", Bind: rootBinding}, argv, &rootFlag{})
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
	root, err := command(s, cmdline.Verb{Name: "token", Synopsis: "token [flags]", Bind: rootBinding}, argv, &rootFlag{})
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

// statusFlags are vxd status's flags.
type statusFlags struct {
	rootFlag
	Format string `flag:"format" arg:"text|json" help:"output format"`
	JSON   bool   `flag:"json" help:"the same as --format json"`
	Watch  bool   `flag:"watch" help:"redraw the status live from the daemon's event feed"`
}

var statusBinding = cmdline.Bind(reflect.TypeFor[statusFlags]())

func statusVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	var f statusFlags
	root, err := command(s, cmdline.Verb{Name: "status", Synopsis: "status [--format text|json] [--watch] [flags]", Bind: statusBinding,
		Check: func(*cmdline.Args) error { _, err := f.format(); return err }}, argv, &f)
	if root == "" {
		return err
	}
	format, _ := f.format() // checked above
	c := &client.Client{Root: root}
	if f.Watch {
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

// format reads --format, with --json as its older spelling.
func (sf *statusFlags) format() (string, error) {
	f := sf.Format
	switch f {
	case "", "text", "json":
	default:
		return "", cmdline.UsageError(fmt.Sprintf("vxd status: --format %q is not a format (use text or json)", f))
	}
	if sf.JSON {
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
		switch {
		case !r.OK:
			state = "FAILED: " + r.Error
		case len(r.PluginsFailed) > 0:
			state = "loaded; " + wire.PluginsFailedText(r.PluginsFailed) + " (vx info says why)"
		}
		row("last reload", fmt.Sprintf("%s (%s, %dms, %s)", cmdline.Time(r.At), r.Trigger, r.DurationMs, state))
	}
	if st.ConfigError != "" {
		row("config error", st.ConfigError+" (the last good configuration keeps serving)")
	}
	if st.PluginEditsIgnored != "" {
		row("plugin edits", st.PluginEditsIgnored)
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

// port reads --port as server.Options.Port: not given 0, 0 as -1 (any
// free port), else the port.
func (f *portFlag) port() (int, error) {
	if f.Port == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(*f.Port)
	if err != nil || n < 0 || n > workspace.MaxPort {
		return 0, cmdline.UsageError(fmt.Sprintf("--port %q is not a port (use 1..%d, or 0 for any free port)", *f.Port, workspace.MaxPort))
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

// durationFlag reads a duration flag (or, without it, env) where 0 means
// never: 0 is returned as -1, and an unset flag as 0 (the default).
func durationFlag(given *string, flag, env string) (time.Duration, error) {
	v, from := os.Getenv(env), env
	if given != nil {
		v, from = *given, "--"+flag
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
