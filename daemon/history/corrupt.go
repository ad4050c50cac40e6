package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// MovedAside says that Open found the history unreadable and moved it
// aside before starting a fresh one.
type MovedAside struct {
	Path  string // the history file, as it was
	To    string // where it now is: PATH.corrupt-TIME
	Cause string // what SQLite said about it
}

func (m *MovedAside) String() string {
	return fmt.Sprintf("run history %s was not a readable database (%s): moved it aside to %s and started a fresh history (see vx docs corrupt)", m.Path, m.Cause, m.To)
}

// MovedAside is what Open moved aside, or nil; vx run says it once.
func (s *Store) MovedAside() *MovedAside { return s.movedAside }

// corruptError is a read of a history that is no database (garbage, a
// half-truncated file, a directory). Readers leave it in place: the next
// vx run moves it aside.
type corruptError struct {
	Path string
	Err  error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("run history %s is not a readable database (%v); nothing was changed: the next vx "+
		"run moves it aside to %s.corrupt-TIME and starts a fresh history", e.Path, e.Err, filepath.Base(e.Path))
}

func (e *corruptError) Unwrap() error { return e.Err }

// isCorrupt reports whether err means the file at path is no usable
// SQLite database at all, as opposed to busy, locked or out of space.
func isCorrupt(path string, err error) bool {
	if err == nil {
		return false
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return true
	}
	code, _ := sqliteCode(err)
	return code == codeNotADB || code == codeCorrupt
}

// openRecovering opens the history for writing; when the file is no
// database it is moved aside (with its -wal and -shm) and a fresh history
// is created in its place. The history is a record, not a source of
// truth: a damaged one must never block a run, nor be deleted.
func openRecovering(ctx context.Context, path string, opts *Options) (*Store, error) {
	s, err := openWriter(ctx, path, opts)
	abs, aerr := filepath.Abs(path)
	if err == nil || aerr != nil || !isCorrupt(abs, err) {
		return s, err
	}
	moved := &MovedAside{Path: abs, To: abs + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000Z"), Cause: causeOf(abs, err)}
	if rerr := os.Rename(abs, moved.To); rerr != nil {
		return nil, fmt.Errorf("%w (moving it aside failed: %v)", err, rerr)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, serr := os.Lstat(abs + suffix); serr == nil {
			_ = os.Rename(abs+suffix, moved.To+suffix)
		}
	}
	s, err = openWriter(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	s.movedAside = moved
	s.log.Warn().Str("path", abs).Str("movedTo", moved.To).Str("cause", moved.Cause).Msg("run history was not a database; started a fresh one")
	return s, nil
}

func causeOf(path string, err error) string {
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return "it is a directory"
	}
	if _, msg := sqliteCode(err); msg != "" {
		return msg
	}
	return err.Error()
}
