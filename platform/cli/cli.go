// Package cli is the vx-platform command line: serve, migrate, org and
// token. Each subcommand takes --db URL (or VX_PLATFORM_DB).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/vzn/vx/protocol/version"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/platform/api"
	"github.com/vzn/vx/platform/store"
	"github.com/vzn/vx/platform/tokens"
)

// DefaultListen is where serve listens without --listen.
const DefaultListen = "127.0.0.1:7070"

// usageError is a refusal of the command line (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

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
	err := run(ctx, argv, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "vx-platform: %s\n", ue.msg)
		return 2
	default:
		fmt.Fprintf(stderr, "vx-platform: %v\n", err)
		return 1
	}
}

func run(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "-h" || argv[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch argv[0] {
	case "serve":
		return serve(ctx, argv[1:], stderr)
	case "migrate":
		return migrate(ctx, argv[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, version.Line("vx-platform"))
		return nil
	case "org":
		if len(argv) >= 2 && argv[1] == "create" {
			return orgCreate(ctx, argv[2:], stdout, stderr)
		}
		return usageError{"org: use `vx-platform org create NAME`"}
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
		return usageError{"token: use `vx-platform token create|list|revoke`"}
	}
	return usageError{fmt.Sprintf("unknown command %q; run `vx-platform help`", argv[0])}
}

// flags is a subcommand's flag set with --db.
func flags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("vx-platform "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", os.Getenv("VX_PLATFORM_DB"), "PostgreSQL URL (default $VX_PLATFORM_DB)")
	return fs, db
}

// parse parses flags that may come before or after the positional
// arguments, and checks their count.
func parse(fs *flag.FlagSet, argv []string, npos int, what string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(argv); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		argv = fs.Args()[1:]
	}
	if len(pos) != npos {
		return nil, usageError{fmt.Sprintf("%s: want %s", fs.Name(), what)}
	}
	return pos, nil
}

func open(ctx context.Context, url string) (*store.DB, error) {
	db, err := store.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return db, nil
}

func migrate(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	fs, url := flags("migrate", stderr)
	if _, err := parse(fs, argv, 0, "no arguments"); err != nil {
		return err
	}
	db, err := open(ctx, *url)
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

func serve(ctx context.Context, argv []string, stderr io.Writer) error {
	fs, url := flags("serve", stderr)
	listen := fs.String("listen", envOr("VX_PLATFORM_LISTEN", DefaultListen), "address to listen on (default $VX_PLATFORM_LISTEN or 127.0.0.1:7070)")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	secure := fs.Bool("secure-cookies", false, "mark the dashboard's session cookie Secure (when served over HTTPS)")
	if _, err := parse(fs, argv, 0, "no arguments"); err != nil {
		return err
	}
	lvl, err := zerolog.ParseLevel(*level)
	if err != nil {
		return usageError{fmt.Sprintf("--log-level %q is not debug, info, warn or error", *level)}
	}
	log := zerolog.New(stderr).Level(lvl).With().Timestamp().Logger()
	limitMemory()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := open(ctx, *url)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *listen, err)
	}
	srv := &http.Server{
		Handler:           api.New(db.Pool, &api.Options{Version: version.Version, Logger: log, SecureCookies: *secure}),
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
	return oneNameVerb(ctx, "org create", "one org NAME", argv, stdout, stderr, "org %s created\n",
		func(ctx context.Context, db *store.DB, name string) error {
			return tokens.CreateOrg(ctx, db.Pool, name)
		})
}

func tokenCreate(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	fs, url := flags("token create", stderr)
	var in tokens.CreateInput
	fs.StringVar(&in.Org, "org", "", "the org (required)")
	fs.StringVar(&in.Workspace, "workspace", "", "pin the token to one workspace slug")
	fs.StringVar(&in.Scope, "scope", "read", "read, ingest or admin")
	fs.StringVar(&in.Name, "name", "", "a label for token list")
	if _, err := parse(fs, argv, 0, "flags only"); err != nil {
		return err
	}
	if in.Org == "" {
		return usageError{"token create: --org NAME is required"}
	}
	db, err := open(ctx, *url)
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

func tokenList(ctx context.Context, argv []string, stdout, stderr io.Writer) error {
	fs, url := flags("token list", stderr)
	org := fs.String("org", "", "the org (required)")
	if _, err := parse(fs, argv, 0, "flags only"); err != nil {
		return err
	}
	if *org == "" {
		return usageError{"token list: --org NAME is required"}
	}
	db, err := open(ctx, *url)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := tokens.List(ctx, db.Pool, *org)
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
	return oneNameVerb(ctx, "token revoke", "one token ID (token list shows them)", argv, stdout, stderr, "token %s revoked\n",
		func(ctx context.Context, db *store.DB, id string) error { return tokens.Revoke(ctx, db.Pool, id, 0) })
}

// oneNameVerb is a verb that takes one positional argument (what says
// which) and the database flag: it opens the database, applies do to the
// argument and prints done with it.
func oneNameVerb(ctx context.Context, name, what string, argv []string, stdout, stderr io.Writer, done string,
	do func(context.Context, *store.DB, string) error) error {
	fs, url := flags(name, stderr)
	pos, err := parse(fs, argv, 1, what)
	if err != nil {
		return err
	}
	db, err := open(ctx, *url)
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
