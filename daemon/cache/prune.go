package cache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Stats summarises the entries of a cache.
type Stats struct {
	Entries int       `json:"entries"`
	Bytes   int64     `json:"bytes"`
	Oldest  time.Time `json:"oldest,omitzero"`
	Newest  time.Time `json:"newest,omitzero"`
}

// PruneOptions select what Prune evicts. Zero OlderThan or MaxSize means no
// limit of that kind; Now defaults to the current time.
type PruneOptions struct {
	OlderThan time.Duration
	MaxSize   int64
	DryRun    bool
	Now       time.Time
}

// PruneResult is what Prune did, or with DryRun would do. BytesFreed counts
// evicted entries; orphans are counted apart. Entries and Bytes are what
// remains.
type PruneResult struct {
	DryRun      bool      `json:"dryRun"`
	Evicted     []Evicted `json:"evicted"`
	BytesFreed  int64     `json:"bytesFreed"`
	Orphans     int       `json:"orphans"`
	OrphanBytes int64     `json:"orphanBytes"`
	Entries     int       `json:"entries"`
	Bytes       int64     `json:"bytes"`
}

// Evicted is one entry Prune removed and why: "olderThan" or "maxSize".
type Evicted struct {
	Key     string    `json:"key"`
	TaskID  string    `json:"taskId"`
	Bytes   int64     `json:"bytes"`
	Created time.Time `json:"created"`
	Reason  string    `json:"reason"`
}

// Eviction reasons.
const (
	reasonOlderThan = "olderThan"
	reasonMaxSize   = "maxSize"
)

// orphanAge is how old a temp file must be before Prune takes it for the
// leftover of a crashed Put rather than one in progress.
const orphanAge = time.Minute

type scanned struct {
	path string
	size int64
	hdr  header
}

type orphan struct {
	path string
	size int64
}

// scan reads the header of every entry, a few files at a time. Damaged
// entries are returned as orphans, as are temp files older than orphanAge
// at now.
func (s *Store) scan(ctx context.Context, now time.Time) ([]scanned, []orphan, error) {
	shards, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading cache: %w", err)
	}
	var paths []string
	var orphans []orphan
	for _, sd := range shards {
		if !sd.IsDir() || len(sd.Name()) != 2 || checkKey(sd.Name()+"00") != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		dir := filepath.Join(s.dir, sd.Name())
		des, err := os.ReadDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, nil, fmt.Errorf("reading cache: %w", err)
		}
		for _, de := range des {
			name := de.Name()
			switch {
			case strings.HasPrefix(name, tempPrefix):
				fi, err := de.Info()
				if err == nil && now.Sub(fi.ModTime()) > orphanAge {
					orphans = append(orphans, orphan{filepath.Join(dir, name), fi.Size()})
				}
			case strings.HasSuffix(name, entryExt):
				key := strings.TrimSuffix(name, entryExt)
				if checkKey(key) == nil && key[:2] == sd.Name() { // else not a name Put writes: leave it alone
					paths = append(paths, filepath.Join(dir, name))
				}
			}
		}
	}

	type result struct {
		e    scanned
		size int64
		err  error
	}
	results := make([]result, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(scanWorkers, len(paths)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(paths) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				key := strings.TrimSuffix(filepath.Base(paths[i]), entryExt)
				r := &results[i]
				r.e, r.size, r.err = readEntryHeader(paths[i], key)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	entries := make([]scanned, 0, len(paths))
	for i, r := range results {
		switch {
		case errors.Is(r.err, fs.ErrNotExist):
			// Pruned or replaced meanwhile.
		case r.err != nil:
			s.log.Warn().Err(r.err).Str("path", paths[i]).Msg("unreadable cache entry")
			orphans = append(orphans, orphan{paths[i], r.size})
		default:
			entries = append(entries, r.e)
		}
	}
	return entries, orphans, nil
}

// scanWorkers bounds the header reads in flight; they are mostly syscalls.
const scanWorkers = 8

// readEntryHeader reads the prefix and meta section of the entry at path:
// a stat and one small read.
func readEntryHeader(path, key string) (scanned, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return scanned{}, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return scanned{}, 0, err
	}
	_, hdr, err := readHeader(f, fi.Size())
	if err == nil && hdr.Key != key {
		err = fmt.Errorf("holds key %q", hdr.Key)
	}
	if err != nil {
		return scanned{}, fi.Size(), corrupt(path, err)
	}
	return scanned{path: path, size: fi.Size(), hdr: hdr}, fi.Size(), nil
}

func (e scanned) entry() Entry {
	return Entry{Meta: e.hdr.Meta, Size: e.size, Files: e.hdr.Files, Path: e.path}
}

// Stats counts the entries of project, or of all projects when project is "".
func (s *Store) Stats(project string) (Stats, error) {
	entries, _, err := s.scan(context.Background(), time.Now())
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	for _, e := range entries {
		if project != "" && e.hdr.Project != project {
			continue
		}
		st.Entries++
		st.Bytes += e.size
		if c := e.hdr.Created; st.Oldest.IsZero() || c.Before(st.Oldest) {
			st.Oldest = c
		}
		if c := e.hdr.Created; c.After(st.Newest) {
			st.Newest = c
		}
	}
	return st, nil
}

// Latest returns the newest entry of the task taskID (project#task), or
// ErrMiss.
func (s *Store) Latest(taskID string) (*Entry, error) {
	entries, _, err := s.scan(context.Background(), time.Now())
	if err != nil {
		return nil, err
	}
	var best *scanned
	for i, e := range entries {
		if e.hdr.TaskID == taskID && (best == nil || e.hdr.Created.After(best.hdr.Created) ||
			e.hdr.Created.Equal(best.hdr.Created) && e.hdr.Key > best.hdr.Key) {
			best = &entries[i]
		}
	}
	if best == nil {
		return nil, ErrMiss
	}
	e := best.entry()
	return &e, nil
}

// Prune evicts entries created more than o.OlderThan before o.Now, then the
// oldest ones until the rest fit in o.MaxSize, and removes orphans: temp
// files left by a crashed Put and entries whose header is damaged. With
// o.DryRun it only reports. Failures to remove are returned joined, with
// the result.
func (s *Store) Prune(ctx context.Context, o PruneOptions) (PruneResult, error) {
	if o.OlderThan < 0 || o.MaxSize < 0 {
		return PruneResult{}, fmt.Errorf("pruning cache: negative limit (olderThan %v, maxSize %d)", o.OlderThan, o.MaxSize)
	}
	if s.readOnly && !o.DryRun {
		return PruneResult{}, fmt.Errorf("pruning cache: %w", errReadOnly)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	entries, orphans, err := s.scan(ctx, now)
	if err != nil {
		return PruneResult{}, fmt.Errorf("pruning cache: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i].hdr, entries[j].hdr
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.Key < b.Key
	})

	res := PruneResult{DryRun: o.DryRun, Evicted: []Evicted{}}
	var evict []string
	drop := func(e scanned, reason string) {
		res.Evicted = append(res.Evicted, Evicted{Key: e.hdr.Key, TaskID: e.hdr.TaskID, Bytes: e.size, Created: e.hdr.Created, Reason: reason})
		res.BytesFreed += e.size
		evict = append(evict, e.path)
	}
	kept := entries[:0]
	var total int64
	for _, e := range entries {
		if o.OlderThan > 0 && now.Sub(e.hdr.Created) > o.OlderThan {
			drop(e, reasonOlderThan)
			continue
		}
		kept = append(kept, e)
		total += e.size
	}
	if o.MaxSize > 0 {
		i := 0
		for ; i < len(kept) && total > o.MaxSize; i++ {
			drop(kept[i], reasonMaxSize)
			total -= kept[i].size
		}
		kept = kept[i:]
	}
	res.Entries, res.Bytes = len(kept), total
	res.Orphans = len(orphans)
	for _, or := range orphans {
		res.OrphanBytes += or.size
		evict = append(evict, or.path)
	}
	if o.DryRun {
		return res, nil
	}
	var errs []error
	for _, p := range evict {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn().Err(err).Str("path", p).Msg("removing cache entry")
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return res, fmt.Errorf("pruning cache: %w", err)
	}
	return res, nil
}
