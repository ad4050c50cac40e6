//go:build !windows

package engine_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestTwoRunsAtOnce starts two `vx run` in one workspace at the same time.
// Each work task appends "ID start PID NANOS" and "ID end PID NANOS" to a
// ledger outside the workspace; no task may overlap with itself.
func TestTwoRunsAtOnce(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "conc")
	ledger := filepath.Join(t.TempDir(), "ledger")
	env := []string{"LEDGER=" + ledger}

	const runs = 2
	results := make([]result, runs)
	sums := make([]*summary, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = vx(t, ws, env, "run", "build", "work", "--format", "json")
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Code != 0 {
			t.Fatalf("run %d: want exit 0\n%s", i, r)
		}
		var s summary
		decodeOnly(t, r, &s)
		sums[i] = &s
		for _, row := range s.Tasks {
			if row.Status != "passed" {
				t.Errorf("run %d: %s %s (%s)", i, row.TaskID, row.Status, row.Reason)
			}
		}
	}

	var list struct {
		Runs []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	answerJSON(t, ws, &list, "last", "--list")
	recorded := map[string]string{}
	for _, r := range list.Runs {
		recorded[r.ID] = r.Status
	}
	for _, s := range sums {
		if recorded[s.RunID] != "passed" {
			t.Errorf("run %s is recorded as %q in vx last --list (%v)", s.RunID, recorded[s.RunID], recorded)
		}
	}

	// Intervals per task, from the ledger.
	type span struct {
		pid        string
		start, end int64
	}
	spans := map[string][]*span{}
	open := map[string]*span{}
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, ledger)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("ledger line %q", line)
		}
		ns, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		k := f[0] + " " + f[2]
		switch f[1] {
		case "start":
			sp := &span{pid: f[2], start: ns}
			open[k] = sp
			spans[f[0]] = append(spans[f[0]], sp)
		case "end":
			if open[k] == nil {
				t.Fatalf("ledger: end without start: %q", line)
			}
			open[k].end = ns
		}
	}
	for id, list := range spans {
		if len(list) != runs {
			t.Errorf("%s executed %d times, want %d (cache off: once per run)", id, len(list), runs)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].start < list[j].start })
		for i := 1; i < len(list); i++ {
			if list[i].start < list[i-1].end {
				t.Errorf("%s overlapped with itself: pid %s ran %s, pid %s started at %d", id, list[i-1].pid, fmtSpan(list[i-1].start, list[i-1].end), list[i].pid, list[i].start)
			}
		}
	}
	if len(spans) != 3 {
		t.Errorf("ledger names %d tasks, want 3", len(spans))
	}
}

func fmtSpan(a, b int64) string { return fmt.Sprintf("[%d, %d]", a, b) }
