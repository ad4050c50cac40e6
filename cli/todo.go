package cli

import (
	"context"
	"errors"

	"github.com/vzn/vx/client"
)

func docsVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("docs: in progress")
}
func initVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("init: in progress")
}
func watchStatus(ctx context.Context, s *IO, c *client.Client) error {
	return errors.New("watch: in progress")
}
