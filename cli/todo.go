package cli

import (
	"context"
	"errors"
)

func docsVerb(ctx context.Context, s *IO, argv []string) error {
	return errors.New("docs: in progress")
}
