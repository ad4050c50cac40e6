package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fill stores one entry per age, each with a ~1 KB output, and returns
// their keys, oldest first.
func fill(t *testing.T, s *Store, ages ...time.Duration) []string {
	t.Helper()
	src := t.TempDir()
	files := writeTree(t, src, map[string]node{"out.bin": {content: randomString(1000), mode: 0o644}})
	var keys []string
	for i, age := range ages {
		m := meta(fmt.Sprintf("%032x", i+1))
		m.TaskID = fmt.Sprintf("p%d#build", i%2)
		m.Project = fmt.Sprintf("p%d", i%2)
		m.Created = now.Add(-age)
		if _, err := s.Put(context.Background(), m, src, files, nil); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, m.Key)
	}
	return keys
}

// listing returns every path under dir, to show a dry run changed nothing.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		out = append(out, p)
		return err
	})
	return out
}

func evictedKeys(r PruneResult) []string {
	var ks []string
	for _, e := range r.Evicted {
		ks = append(ks, e.Key+":"+e.Reason)
	}
	return ks
}

func TestPrune(t *testing.T) {
	day := 24 * time.Hour
	ages := []time.Duration{30 * day, 10 * day, 3 * day, day, 0}
	tests := []struct {
		name    string
		opts    PruneOptions
		evicted []int    // indexes into ages
		reasons []string // per evicted entry
	}{
		{"nothing to do", PruneOptions{}, nil, nil},
		{"older than a week", PruneOptions{OlderThan: 7 * day}, []int{0, 1}, []string{"olderThan", "olderThan"}},
		{"everything fits", PruneOptions{MaxSize: 1 << 30, OlderThan: 365 * day}, nil, nil},
		{"both", PruneOptions{OlderThan: 20 * day, MaxSize: 1}, []int{0, 1, 2, 3, 4}, []string{"olderThan", "maxSize", "maxSize", "maxSize", "maxSize"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			keys := fill(t, s, ages...)
			tc.opts.Now = now
			res, err := s.Prune(context.Background(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i, k := range tc.evicted {
				want = append(want, keys[k]+":"+tc.reasons[i])
			}
			if got := evictedKeys(res); !slices.Equal(got, want) {
				t.Errorf("evicted %v, want %v", got, want)
			}
			for i, k := range keys {
				_, err := s.Get(k)
				if gone := slices.Contains(tc.evicted, i); gone != errors.Is(err, ErrMiss) {
					t.Errorf("entry %d (%s): Get = %v, evicted %v", i, k, err, gone)
				}
			}
			st, _ := s.Stats("")
			if res.Entries != st.Entries || res.Bytes != st.Bytes || res.Entries != len(ages)-len(tc.evicted) {
				t.Errorf("result says %d entries / %d bytes remain, Stats says %+v", res.Entries, res.Bytes, st)
			}
		})
	}
}

func TestPruneMaxSize(t *testing.T) {
	s := openStore(t)
	keys := fill(t, s, 4*time.Hour, 3*time.Hour, 2*time.Hour, time.Hour)
	st, _ := s.Stats("")
	per := st.Bytes / 4
	// Room for two and a half entries: the two oldest go.
	res, err := s.Prune(context.Background(), PruneOptions{MaxSize: per*2 + per/2, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := evictedKeys(res), []string{keys[0] + ":maxSize", keys[1] + ":maxSize"}; !slices.Equal(got, want) {
		t.Errorf("evicted %v, want %v", got, want)
	}
	if res.BytesFreed != 2*per || res.Bytes != 2*per || res.Entries != 2 {
		t.Errorf("result %+v, want 2 entries of %d bytes freed and kept", res, per)
	}
}

func TestPruneDryRunAndOrphans(t *testing.T) {
	s := openStore(t)
	keys := fill(t, s, 40*24*time.Hour, time.Hour, 0)
	shard := filepath.Dir(s.entryPath(keys[0]))

	// A crashed Put's temp file, a Put still in progress, and a damaged entry.
	oldTemp := filepath.Join(shard, tempPrefix+keys[0]+"-1")
	os.WriteFile(oldTemp, make([]byte, 100), 0o644)
	os.Chtimes(oldTemp, now.Add(-time.Hour), now.Add(-time.Hour))
	newTemp := filepath.Join(shard, tempPrefix+keys[0]+"-2")
	os.WriteFile(newTemp, make([]byte, 50), 0o644)
	os.Chtimes(newTemp, now.Add(-10*time.Second), now.Add(-10*time.Second))
	bad := s.entryPath(keys[1])
	b, _ := os.ReadFile(bad)
	os.WriteFile(bad, b[:len(b)-10], 0o644)
	badSize := int64(len(b) - 10)
	// Files Put never writes are not the cache's to remove.
	stranger := filepath.Join(shard, "README")
	os.WriteFile(stranger, []byte("hi"), 0o644)

	before := listing(t, s.dir)
	opts := PruneOptions{OlderThan: 30 * 24 * time.Hour, DryRun: true, Now: now}
	dry, err := s.Prune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if after := listing(t, s.dir); !slices.Equal(before, after) {
		t.Errorf("dry run changed the cache:\nbefore %v\nafter  %v", before, after)
	}
	if !dry.DryRun || dry.Orphans != 2 || dry.OrphanBytes != 100+badSize || len(dry.Evicted) != 1 || dry.Entries != 1 {
		t.Errorf("dry run = %+v", dry)
	}

	opts.DryRun = false
	res, err := s.Prune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	dry.DryRun = false
	if !slices.Equal(evictedKeys(res), evictedKeys(dry)) || res.Orphans != dry.Orphans || res.OrphanBytes != dry.OrphanBytes || res.BytesFreed != dry.BytesFreed {
		t.Errorf("prune = %+v, dry run promised %+v", res, dry)
	}
	for _, p := range []string{oldTemp, bad, s.entryPath(keys[0])} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s survived the prune", p)
		}
	}
	for _, p := range []string{newTemp, stranger, s.entryPath(keys[2])} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

func TestPruneResultJSON(t *testing.T) {
	s := openStore(t)
	res, err := s.Prune(context.Background(), PruneOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	want := `{"dryRun":true,"evicted":[],"bytesFreed":0,"orphans":0,"orphanBytes":0,"entries":0,"bytes":0}`
	if string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
}

func TestStatsAndLatest(t *testing.T) {
	s := openStore(t)
	keys := fill(t, s, 5*time.Hour, 4*time.Hour, 3*time.Hour, 2*time.Hour, time.Hour)
	all, err := s.Stats("")
	if err != nil {
		t.Fatal(err)
	}
	if all.Entries != 5 || all.Bytes <= 0 || !all.Oldest.Equal(now.Add(-5*time.Hour)) || !all.Newest.Equal(now.Add(-time.Hour)) {
		t.Errorf("Stats(all) = %+v", all)
	}
	p1, _ := s.Stats("p1")
	if p1.Entries != 2 || !p1.Oldest.Equal(now.Add(-4*time.Hour)) || !p1.Newest.Equal(now.Add(-2*time.Hour)) {
		t.Errorf("Stats(p1) = %+v", p1)
	}
	if none, _ := s.Stats("nope"); none != (Stats{}) {
		t.Errorf("Stats(nope) = %+v", none)
	}

	e, err := s.Latest("p0#build")
	if err != nil || e.Key != keys[4] {
		t.Errorf("Latest(p0#build) = %+v, %v; want key %s", e, err, keys[4])
	}
	if e != nil && (e.Files != 1 || e.Command != "tsc -b" || e.Size <= 0 || !strings.HasSuffix(e.Path, keys[4]+entryExt)) {
		t.Errorf("Latest entry = %+v", e)
	}
	if _, err := s.Latest("other#build"); !errors.Is(err, ErrMiss) {
		t.Errorf("Latest(other) = %v, want ErrMiss", err)
	}
	// A damaged newest entry is skipped, not reported as the latest.
	os.WriteFile(s.entryPath(keys[4]), []byte("junk"), 0o644)
	if e, err := s.Latest("p0#build"); err != nil || e.Key != keys[2] {
		t.Errorf("Latest after damage = %+v, %v; want %s", e, err, keys[2])
	}
}

// TestEvictExactlyThePlan: a dry run's evictions, evicted later, remove
// exactly those entries; an entry gone or replaced meanwhile refuses the
// whole eviction, naming it, and removes nothing.
func TestEvictExactlyThePlan(t *testing.T) {
	day := 24 * time.Hour
	s := openStore(t)
	keys := fill(t, s, 10*day, 5*day, 0)
	plan, err := s.Prune(context.Background(), PruneOptions{OlderThan: 2 * day, DryRun: true, Now: now})
	if err != nil || len(plan.Evicted) != 2 {
		t.Fatalf("dry run: %v %+v", err, plan)
	}
	res, moved, err := s.Evict(context.Background(), plan.Evicted)
	if err != nil || len(moved) != 0 {
		t.Fatalf("evict: %v %v", err, moved)
	}
	if res.BytesFreed != plan.BytesFreed || res.Entries != 1 {
		t.Errorf("evicted %+v, want %d bytes freed and one entry left", res, plan.BytesFreed)
	}
	for i, k := range keys {
		_, err := s.Get(k)
		if gone := errors.Is(err, ErrMiss); gone != (i < 2) {
			t.Errorf("entry %d (%s): gone %v, err %v", i, k, gone, err)
		}
	}

	// Planned again, then one planned entry disappears: nothing is removed.
	s2 := openStore(t)
	keys = fill(t, s2, 10*day, 5*day, 0)
	plan, _ = s2.Prune(context.Background(), PruneOptions{OlderThan: 2 * day, DryRun: true, Now: now})
	if err := os.Remove(s2.entryPath(keys[0])); err != nil {
		t.Fatal(err)
	}
	_, moved, err = s2.Evict(context.Background(), plan.Evicted)
	if err != nil || len(moved) != 1 || !strings.Contains(moved[0], keys[0]+" (p0#build) is no longer in the cache") {
		t.Fatalf("moved %v, err %v", moved, err)
	}
	if _, err := s2.Get(keys[1]); err != nil {
		t.Errorf("a refused eviction removed %s: %v", keys[1], err)
	}
}
