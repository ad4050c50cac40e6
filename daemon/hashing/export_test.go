package hashing

import (
	"context"
	"time"
)

// SetRacyWindow sets how recent a stat may be for a listing to be saved,
// for the tests; it returns the function restoring the old value.
func SetRacyWindow(d time.Duration) func() {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}

// ListFilesSaved is ListFilesCached answering also whether this call saved
// the listing, and whether the identity it answered is the file's now.
func ListFilesSaved(ctx context.Context, root, path string) (reused, saved, same bool, err error) {
	_, reused, id, err := listFilesCached(ctx, root, path, nil)
	if id == nil {
		return reused, false, false, err
	}
	var st Stat
	return reused, true, StatPath(path, &st) == nil && fileIDOf(&st) == *id, err
}

// StatCacheRecords is how many records of the stat cache h has read (0
// while a lazy Hasher has read none).
func StatCacheRecords(h *Hasher) int { return len(h.pre.names) }
