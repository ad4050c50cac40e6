package history

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// Reading a project task by task answers what the project-wide queries
// answered: the newest executions in (run, recording) order, cut at the
// limit, and the cache activity of its runs.
func TestProjectReadsMatchProjectQueries(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for run := 0; run < 12; run++ {
		var execs []Execution
		for i, id := range []string{"web#build", "api#build", "web#test", "web#lint", "webx#build"} {
			if (run+i)%4 == 0 {
				continue // not every task in every run
			}
			e := Execution{TaskID: id, Key: fmt.Sprintf("k%d", run%3), Status: StatusPassed, DurationMs: int64(run*10 + i)}
			if run%2 == 0 {
				e.Cache = CacheHit
			}
			execs = append(execs, e)
		}
		addRun(t, s, "", t0.Add(time.Duration(run)*time.Hour), RunPassed, execs...)
	}
	var web []ExecRow
	for _, r := range everyExecution(t, s) {
		if r.Project == "web" {
			web = append(web, r)
		}
	}
	for _, limit := range []int{1, 7, 20, 500} {
		got, err := s.RecentExecutions(ctx, Filter{Project: "web", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if want := withoutOutput(web, limit); len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d: task by task %d rows, project-wide %d rows, or they differ", limit, len(got), len(want))
		}
	}
	for _, since := range []time.Time{t0, t0.Add(5 * time.Hour), t0.Add(48 * time.Hour)} {
		runs, execs, hits, err := s.CacheActivity(ctx, since, "web")
		if err != nil {
			t.Fatal(err)
		}
		if wr, we, wh := activityOf(web, since); runs != wr || execs != we || hits != wh {
			t.Errorf("since %v: task by task %d runs %d executions %d hits, project-wide %d %d %d", since, runs, execs, hits, wr, we, wh)
		}
	}
}
