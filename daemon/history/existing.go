package history

import "context"

// OpenExisting is Open for a caller with another way to go when the
// history is no database: it never moves one aside. (A vx run repeating
// an earlier one then runs the ordinary way, which moves it aside and
// says so.)
func OpenExisting(ctx context.Context, path string, opts *Options) (*Store, error) {
	return openWriter(ctx, path, opts)
}
