package cli

import (
	"context"
	"errors"
)

func cacheVerb(ctx context.Context, s *IO, argv []string) error { return errors.New("cache: in progress") }
func lockVerb(ctx context.Context, s *IO, argv []string) error  { return errors.New("lock: in progress") }
func docsVerb(ctx context.Context, s *IO, argv []string) error  { return errors.New("docs: in progress") }
func initVerb(ctx context.Context, s *IO, argv []string) error  { return errors.New("init: in progress") }
func infoVerb(ctx context.Context, s *IO, argv []string) error  { return errors.New("info: in progress") }
func mcpVerb(ctx context.Context, s *IO, argv []string) error   { return errors.New("mcp: in progress") }
