// Package cli is the vx-platform command line: serve, migrate, org and
// token. Each subcommand takes --db URL (or VX_PLATFORM_DB).
package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/platform/api"
	"github.com/vzn/vx/platform/store"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/version"
)

// defaultListen is where serve listens without --listen.
const defaultListen = "127.0.0.1:7070"

const usage = `vx-platform: the vx team platform (run history in PostgreSQL, team MCP tools, dashboard)

usage:
  vx-platform serve   [--db URL] [--listen ADDR] [--log-level LEVEL] [--secure-cookies]
  vx-platform migrate [--db URL]
  vx-platform org create NAME [--db URL]
  vx-platform token create --org NAME [--workspace SLUG] [--scope read|ingest|admin] [--name LABEL] [--db URL]
  vx-platform token list --org NAME [--db URL]
  vx-platform token revoke ID [--db URL]

environment: VX_PLATFORM_DB (the database URL), VX_PLATFORM_LISTEN (default 127.0.0.1:7070)
`

// Run is the command line; it returns the exit code.
func Run(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
	s := &cmdline.IO{Out: stdout, Err: stderr}
	return cmdline.Exit(s, "vx-platform", run(ctx, argv, s))
}

func run(ctx context.Context, argv []string, s *cmdline.IO) error {
	stdout, stderr := s.Out, s.Err
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "-h" || argv[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch argv[0] {
	case "serve":
		return serve(ctx, argv[1:], stdout, stderr)
	case "migrate":
		return migrate(ctx, argv[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, version.Line("vx-platform"))
		return nil
	case "org":
		if len(argv) >= 2 && argv[1] == "create" {
			return orgCreate(ctx, argv[2:], stdout, stderr)
		}
		return cmdline.UsageError("org: use `vx-platform org create NAME`")
	case "token":
		if len(argv) >= 2 {
			switch argv[1] {
			case "create":
				return tokenCreate(ctx, argv[2:], stdout, stderr)
			case "list":
				return tokenList(ctx, argv[2:], stdout, stderr)
			case "revoke":
				return tokenRevoke(ctx, argv[2:], stdout, stderr)
			}
		}
		return cmdline.UsageError("token: use `vx-platform token create|list|revoke`")
	}
	return cmdline.UsageError(fmt.Sprintf("unknown command %q; run `vx-platform help`", argv[0]))
}

// dbFlag is --db, which every subcommand takes.
type dbFlag struct {
	DB string `flag:"db" arg:"URL" help:"PostgreSQL URL (default $VX_PLATFORM_DB)"`
}

func defaultDB() dbFlag { return dbFlag{DB: os.Getenv("VX_PLATFORM_DB")} }

// verb is a subcommand's preamble: its flags (b binds dst's type, which
// holds the defaults) fill dst, and it takes npos positional arguments
// (what names them in the refusal). done is true when --help answered or
// the command line was refused (err).
func verb(stdout, stderr io.Writer, name, synopsis string, b *cmdline.Binding, argv []string, dst any, npos int, what string) (pos []string, done bool, err error) {
	a, _, help, err := cmdline.Command(&cmdline.IO{Out: stdout, Err: stderr}, cmdline.Verb{Prog: "vx-platform", Name: name, Synopsis: synopsis, Bind: b,
		Check: func(a *cmdline.Args) error {
			if len(a.Pos()) != npos {
				return cmdline.UsageError(fmt.Sprintf("vx-platform %s: want %s", name, what))
			}
			return b.Fill(a, dst)
		}}, argv)
	if help || err != nil {
		return nil, true, err
	}
	return a.Pos(), false, nil
}

func open(ctx context.Context, url string) (*store.DB, error) {
	db, err := store.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return db, nil
}

var dbBinding = cmdline.Bind(reflect.TypeFor[dbFlag]())

func migrate(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	f := defaultDB()
	if _, done, err := verb(stdout, stderr, "migrate", "migrate [--db URL]", dbBinding, argv, &f, 0, "no arguments"); done {
		return err
	}
	db, err := open(ctx, f.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "schema up to date (%d migrations applied)\n", n)
	return nil
}

// serveFlags are serve's flags.
type serveFlags struct {
	dbFlag
	Listen        string `flag:"listen" arg:"ADDR" help:"address to listen on (default $VX_PLATFORM_LISTEN or 127.0.0.1:7070)"`
	LogLevel      string `flag:"log-level" arg:"LEVEL" help:"debug, info, warn or error (default info)"`
	SecureCookies bool   `flag:"secure-cookies" help:"mark the dashboard's session cookie Secure (when served over HTTPS)"`
}

var serveBinding = cmdline.Bind(reflect.TypeFor[serveFlags]())

func serve(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	f := serveFlags{dbFlag: defaultDB(), Listen: envOr("VX_PLATFORM_LISTEN", defaultListen), LogLevel: "info"}
	if _, done, err := verb(stdout, stderr, "serve", "serve [--db URL] [--listen ADDR] [--log-level LEVEL] [--secure-cookies]", serveBinding, argv, &f, 0, "no arguments"); done {
		return err
	}
	lvl, err := zerolog.ParseLevel(f.LogLevel)
	if err != nil {
		return cmdline.UsageError(fmt.Sprintf("--log-level %q is not debug, info, warn or error", f.LogLevel))
	}
	log := zerolog.New(stderr).Level(lvl).With().Timestamp().Logger()
	limitMemory()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := open(ctx, f.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", f.Listen, err)
	}
	srv := &http.Server{
		Handler:           api.New(db.Pool, &api.Options{Version: version.Version, Logger: log, SecureCookies: f.SecureCookies}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	log.Info().Str("listen", ln.Addr().String()).Str("version", version.Version).Msg("vx-platform serving")
	bounded := api.Listen(srv, ln) // before serving: it sets srv.ConnState
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(bounded) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info().Msg("shutting down")
	return srv.Shutdown(sctx)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func orgCreate(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	return oneNameVerb(ctx, "org create", "org create NAME [--db URL]", "one org NAME", argv, stdout, stderr, "org %s created\n",
		func(ctx context.Context, db *store.DB, name string) error {
			return tokens.CreateOrg(ctx, db.Pool, name)
		})
}

// tokenCreateFlags are token create's flags.
type tokenCreateFlags struct {
	dbFlag
	Org       string `flag:"org" arg:"NAME" help:"the org (required)"`
	Workspace string `flag:"workspace" arg:"SLUG" help:"pin the token to one workspace slug"`
	Scope     string `flag:"scope" arg:"read|ingest|admin" help:"read, ingest or admin (default read)"`
	Name      string `flag:"name" arg:"LABEL" help:"a label for token list"`
}

var tokenCreateBinding = cmdline.Bind(reflect.TypeFor[tokenCreateFlags]())

func tokenCreate(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	f := tokenCreateFlags{dbFlag: defaultDB(), Scope: "read"}
	if _, done, err := verb(stdout, stderr, "token create", "token create --org NAME [--workspace SLUG] [--scope read|ingest|admin] [--name LABEL] [--db URL]",
		tokenCreateBinding, argv, &f, 0, "flags only"); done {
		return err
	}
	if f.Org == "" {
		return cmdline.UsageError("token create: --org NAME is required")
	}
	in := tokens.CreateInput{Org: f.Org, Workspace: f.Workspace, Scope: f.Scope, Name: f.Name}
	db, err := open(ctx, f.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	_, secret, err := tokens.Create(ctx, db.Pool, in)
	if err != nil {
		return err
	}
	// The token and nothing else, so that $(vx-platform token create …) works.
	fmt.Fprintln(stdout, secret)
	return nil
}

// tokenListFlags are token list's flags.
type tokenListFlags struct {
	dbFlag
	Org string `flag:"org" arg:"NAME" help:"the org (required)"`
}

var tokenListBinding = cmdline.Bind(reflect.TypeFor[tokenListFlags]())

func tokenList(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	f := tokenListFlags{dbFlag: defaultDB()}
	if _, done, err := verb(stdout, stderr, "token list", "token list --org NAME [--db URL]", tokenListBinding, argv, &f, 0, "flags only"); done {
		return err
	}
	if f.Org == "" {
		return cmdline.UsageError("token list: --org NAME is required")
	}
	db, err := open(ctx, f.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := tokens.List(ctx, db.Pool, f.Org)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tWORKSPACE\tNAME\tCREATED\tREVOKED")
	for _, t := range list {
		ws, revoked := t.Workspace, "-"
		if ws == "" {
			ws = "(all)"
		}
		if t.RevokedAt != nil {
			revoked = t.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Scope, ws, t.Name, t.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}

func tokenRevoke(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	return oneNameVerb(ctx, "token revoke", "token revoke ID [--db URL]", "one token ID (token list shows them)", argv, stdout, stderr, "token %s revoked\n",
		func(ctx context.Context, db *store.DB, id string) error { return tokens.Revoke(ctx, db.Pool, id, 0) })
}

// oneNameVerb is a verb that takes one positional argument (what says
// which) and the database flag: it opens the database, applies do to the
// argument and prints done with it.
func oneNameVerb(ctx context.Context, name, synopsis, what string, argv []string, stdout, stderr io.Writer, done string,
	do func(context.Context, *store.DB, string) error) error {
	f := defaultDB()
	pos, finished, err := verb(stdout, stderr, name, synopsis, dbBinding, argv, &f, 1, what)
	if finished {
		return err
	}
	db, err := open(ctx, f.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := do(ctx, db, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, done, pos[0])
	return nil
}
