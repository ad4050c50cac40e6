package cache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Evict removes exactly the entries planned (a dry run's Evicted), once
// each is found as planned: the same key with the same size and creation
// time. When any is gone or changed it removes nothing and returns, in
// words, what moved. The result counts what was removed and what
// remains; orphans are not part of a plan and are left alone.
func (s *Store) Evict(ctx context.Context, planned []Evicted) (PruneResult, []string, error) {
	if s.readOnly {
		return PruneResult{}, nil, fmt.Errorf("evicting cache entries: %w", errReadOnly)
	}
	entries, _, err := s.scan(ctx, time.Now())
	if err != nil {
		return PruneResult{}, nil, fmt.Errorf("evicting cache entries: %w", err)
	}
	byKey := make(map[string]scanned, len(entries))
	for _, e := range entries {
		byKey[e.hdr.Key] = e
	}
	var moved []string
	paths := make([]string, 0, len(planned))
	for _, p := range planned {
		e, ok := byKey[p.Key]
		switch {
		case !ok:
			moved = append(moved, fmt.Sprintf("entry %s (%s) is no longer in the cache", p.Key, p.TaskID))
		case e.size != p.Bytes || !e.hdr.Created.Equal(p.Created):
			moved = append(moved, fmt.Sprintf("entry %s (%s) changed: %d bytes created %s when planned, %d bytes created %s now",
				p.Key, p.TaskID, p.Bytes, p.Created.UTC().Format(time.RFC3339), e.size, e.hdr.Created.UTC().Format(time.RFC3339)))
		default:
			paths = append(paths, e.path)
			delete(byKey, p.Key) // a key planned twice is evicted once
		}
	}
	if len(moved) > 0 {
		return PruneResult{}, moved, nil
	}
	res := PruneResult{Evicted: planned}
	var errs []error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, p := range planned {
		res.BytesFreed += p.Bytes
	}
	for _, e := range byKey {
		res.Entries++
		res.Bytes += e.size
	}
	if err := errors.Join(errs...); err != nil {
		return res, nil, fmt.Errorf("evicting cache entries: %w", err)
	}
	return res, nil, nil
}
