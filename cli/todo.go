package cli

import (
	"context"
	"errors"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/tools"
)

func cacheVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("cache: in progress")
}
func lockVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("lock: in progress")
}
func docsVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("docs: in progress")
}
func initVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("init: in progress")
}
func infoVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("info: in progress")
}
func mcpVerb(ctx context.Context, s *IO, argv []string) error { return errors.New("mcp: in progress") }

func watchStatus(ctx context.Context, s *IO, c *client.Client) error {
	return errors.New("watch: in progress")
}

// ExtraTools are the tools of vx init, lock and docs (filled in by those verbs).
func ExtraTools(e *ops.Env) []tools.Def { return []tools.Def{tools.LastRunTool(e)} }
