package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/vzn/vx/internal/flock"
)

// taskLock holds an exclusive lock (LockFileEx) on one task id's lock
// file across processes, so the same task never executes twice at once
// in a workspace; closing the file releases it.
type taskLock struct{ f *os.File }

func lockTask(ctx context.Context, dir, key string) (*taskLock, error) {
	path := filepath.Join(dir, key+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		// The locks directory is made once, by the first task to need it.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	}
	if err != nil {
		return nil, err
	}
	for {
		err := flock.TryLock(f)
		if err == nil {
			return &taskLock{f: f}, nil
		}
		if !errors.Is(err, flock.ErrHeld) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func (l *taskLock) release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
