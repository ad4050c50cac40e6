package history

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// A pass of a (task, key) whose task last passed with that key skips the
// task_keys lookup; what the flaky check answers must not change: a later
// failure of the key is flaky, a failure and a pass of it in one batch
// after such a pass are flaky, another key is recorded, and the pairs
// recorded are exactly those attempted.
func TestKnownPassKeepsFlakyAnswers(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Path(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now().Add(-time.Hour)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	pass := func(id, key string, cache string) Execution {
		return Execution{TaskID: id, Key: key, Status: StatusPassed, Cache: cache, ExitCode: intp(0)}
	}
	fail := func(id, key string) Execution {
		return Execution{TaskID: id, Key: key, Status: StatusFailed, ExitCode: intp(1)}
	}
	addRun(t, s, "", at(0), RunPassed, pass("a#build", "k1", CacheMiss), pass("b#build", "k1", CacheMiss), pass("c#build", "k1", CacheMiss))
	// Hits of the keys each task last passed with: the known path.
	addRun(t, s, "", at(1), RunPassed, pass("a#build", "k1", CacheHit), pass("b#build", "k1", CacheHit), pass("c#build", "k1", CacheHit))
	// a fails with k1 after its known passes; b passes and fails k1 in one
	// batch; c moves to k2.
	addRun(t, s, "", at(2), RunFailed, fail("a#build", "k1"), pass("b#build", "k1", CacheHit), fail("b#build", "k1"), pass("c#build", "k2", CacheMiss))
	got, err := s.FlakyTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a#build", "b#build"}; !reflect.DeepEqual(got, want) {
		t.Errorf("flaky: %v, want %v", got, want)
	}
	rows, err := s.w.QueryContext(ctx, `SELECT task_id, key, passed, failed FROM task_keys ORDER BY task_id, key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var id, key string
		var p, f int
		if err := rows.Scan(&id, &key, &p, &f); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, id+" "+key+" "+map[int]string{0: "-", 1: "passed"}[p]+" "+map[int]string{0: "-", 1: "failed"}[f])
	}
	want := []string{"a#build k1 passed failed", "b#build k1 passed failed", "c#build k1 passed -", "c#build k2 passed -"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("task_keys:\n %q\nwant\n %q", keys, want)
	}
}
