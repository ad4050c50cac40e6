package vx

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"syscall"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/client/shim"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/version"
)

// mcpHelp is vx mcp --help.
const mcpHelp = "usage: vx mcp [--stdio]\n\nThe MCP server for agents, over stdio. Configure a client with\n  " +
	"{ \"mcpServers\": { \"vx\": { \"command\": \"vx\", \"args\": [\"mcp\"] } } }\nand run it from inside a vx " +
	"workspace. The shim starts the workspace's vxd\n(the one beside this vx) when none runs and bridges every " +
	"message to it.\n\nflags:\n  --stdio   newline-delimited JSON-RPC on stdin/stdout (default)\n"

// mcpFlags are vx mcp's flags: --stdio, the default and only transport.
type mcpFlags struct {
	Stdio bool `flag:"stdio" help:"speak newline-delimited JSON-RPC on stdin/stdout (the default, and the only transport)"`
}

var mcpBinding = cmdline.Bind(reflect.TypeFor[mcpFlags]())

// mcpVerb is the stdio shim: it finds the workspace from the current
// directory, starts the vxd beside this executable if needed, and bridges
// newline-delimited JSON-RPC between stdin/stdout and the daemon. Nothing
// but JSON-RPC ever goes to stdout.
func mcpVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	_, _, help, err := cmdline.Command(s, cmdline.Verb{Name: "mcp", Help: mcpHelp, NoArgs: true, NoArgsHint: "; its one flag is --stdio",
		Bind: mcpBinding}, argv)
	if help || err != nil {
		return err
	}
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return fmt.Errorf("vx mcp: %w", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The shim's requests carry the token: they go only on connections
	// the daemon proved (client.Transport).
	c := &client.Client{Root: root, Version: version.Version, Notice: s.Err}
	return shim.Run(ctx, s.In, s.Out, c, &shim.Options{Logger: logger(s), HTTPClient: &http.Client{Transport: c.Transport()}})
}
