package vx

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/client/shim"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/version"
)

// mcpVerb is the stdio shim: it finds the workspace from the current
// directory, starts the vxd beside this executable if needed, and bridges
// newline-delimited JSON-RPC between stdin/stdout and the daemon. Nothing
// but JSON-RPC ever goes to stdout.
func mcpVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, err := cmdline.Parse("mcp", argv, map[string]cmdline.Spec{
		"stdio": {Kind: cmdline.Bool, Help: "speak newline-delimited JSON-RPC on stdin/stdout (the default, and the only transport)"},
	})
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	if a.Bool("help") {
		fmt.Fprint(s.Out, "usage: vx mcp [--stdio]\n\nThe MCP server for agents, over stdio. Configure a client with\n  { \"mcpServers\": { \"vx\": { \"command\": \"vx\", \"args\": [\"mcp\"] } } }\nand run it from inside a vx workspace. The shim starts the workspace's vxd\n(the one beside this vx) when none runs and bridges every message to it.\n\nflags:\n  --stdio   newline-delimited JSON-RPC on stdin/stdout (default)\n")
		return nil
	}
	if len(a.Pos()) > 0 {
		return cmdline.UsageError(fmt.Sprintf("vx mcp takes no arguments (got %q); its one flag is --stdio", a.Pos()[0]))
	}
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return fmt.Errorf("vx mcp: %w", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &client.Client{Root: root, Version: version.Version}
	return shim.Run(ctx, s.In, s.Out, c, &shim.Options{Logger: logger(s)})
}
