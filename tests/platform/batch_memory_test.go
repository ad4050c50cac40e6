//go:build !windows

package platform_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// bigRun is a run of n tasks, a third failed with a reason and a third
// blocked, as large as a push may be.
func bigRun(id string, n int) *wire.PushRun {
	zero, one := 0, 1
	end := T0.Add(10 * time.Minute)
	r := &wire.PushRun{Workspace: "big", RunID: id, Command: "vx run build", GitBranch: "main", GitCommit: strings.Repeat("c", 40),
		StartedAt: T0, EndedAt: &end, ExitCode: &one, Status: "failed", DurationMs: 600000,
		Totals: wire.RunTotals{Tasks: n, Passed: (n + 2) / 3, Failed: n / 3}}
	for i := range n {
		p := fmt.Sprintf("packages/service-%05d", i)
		row := task(p+"#build", "passed", "miss", "", fmt.Sprintf("%032x", i+1), int64(1000+i), &zero)
		row.PeakRSSBytes, row.CPUParallelism = 200<<20, 1.5
		switch i % 3 {
		case 1:
			row.Status, row.ExitCode = "failed", &one
			row.Reason = "exit status 1: error TS2322: Type 'string' is not assignable to type 'number' in src/index.ts"
		case 2:
			row.Status, row.ExitCode = "blocked", nil
			row.BlockedBy = []string{fmt.Sprintf("packages/service-%05d#build", i-1)}
		}
		r.Tasks = append(r.Tasks, row)
	}
	return r
}

// procBytes reads a field of /proc/PID/status, in bytes.
func procBytes(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestBatchesKeepMemoryBounded: after one pushed run of 20,000 tasks,
// eight clients with a read token post at once a 2 KB batch of get_run
// and compare_runs calls on it. Each body's answers stop at the answer
// budget (the rest refused, saying so), and the server's peak RSS over
// the attack stays under 256 MiB.
func TestBatchesKeepMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes a 20,000-task run and reads it 136 times")
	}
	ts := seed(t)
	_, bin := binaries(t)
	srv := startServe(t, bin, ts.p.url)
	run := bigRun("abcdef012345", wire.MaxPushTasks)
	if r := push(t, srv.base, ts.acmeIngest, run); r.status != http.StatusCreated {
		t.Fatalf("pushing the big run: %d %s", r.status, r.body)
	}
	pid := srv.cmd.Process.Pid
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("resetting the peak RSS: %v", err)
	}
	var calls []string
	for i := 1; len(strings.Join(calls, ","))+200 < 2048; i++ {
		name := []string{"get_run", "compare_runs"}[i%2]
		calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"workspace":"big","runId":%q}}}`, i, name, run.RunID))
	}
	body := []byte("[" + strings.Join(calls, ",") + "]")
	var (
		wg             sync.WaitGroup
		mu             sync.Mutex
		answered, kept int
		refusals       []string
	)
	for range 8 {
		wg.Go(func() {
			r := do(t, "POST", srv.base+"/mcp", ts.acme, body)
			var replies []struct {
				Result *callResult `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(r.body, &replies); err != nil {
				t.Errorf("the batch's answer (%d, %d bytes) is not a JSON-RPC batch: %v", r.status, len(r.body), err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, rep := range replies {
				switch {
				case rep.Result != nil && !rep.Result.IsError:
					kept++
				case rep.Error != nil:
					refusals = append(refusals, rep.Error.Message)
				case rep.Result != nil:
					refusals = append(refusals, rep.Result.text())
				}
				answered++
			}
		})
	}
	wg.Wait()
	peak := procBytes(t, pid, "VmHWM")
	t.Logf("%d calls: %d answered in full, %d refused; peak RSS %d MiB", answered, kept, len(refusals), peak>>20)
	if answered != 8*len(calls) || kept == 0 || len(refusals) == 0 {
		t.Fatalf("want every call answered, some in full and the rest refused: %d of %d, %d in full", answered, 8*len(calls), kept)
	}
	for _, msg := range refusals {
		if !strings.Contains(msg, "too large") && !strings.Contains(msg, "busy") {
			t.Fatalf("a refusal that is not about size: %s", msg)
		}
	}
	if peak > 256<<20 {
		t.Errorf("peak RSS of vx-platform over the attack: %d MiB, over 256 MiB", peak>>20)
	}
	if r := do(t, "GET", srv.base+"/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("/healthz after the attack: %d", r.status)
	}
}

// TestReadsInFlightCapped: one read token with 150 get_run calls of a
// 20,000-task run in flight at once (the platform computes two at a time)
// has those over its cap refused at once with 429 naming it, rather than
// holding connections while they wait; /healthz, a push and another
// token's read are served meanwhile.
func TestReadsInFlightCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes a 20,000-task run")
	}
	ts := seed(t)
	_, bin := binaries(t)
	srv := startServe(t, bin, ts.p.url)
	run := bigRun("abcdef012346", wire.MaxPushTasks)
	if r := push(t, srv.base, ts.acmeIngest, run); r.status != http.StatusCreated {
		t.Fatalf("pushing the big run: %d %s", r.status, r.body)
	}
	body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_run","arguments":{"workspace":"big","runId":%q}}}`, run.RunID))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
		refusal  string
	)
	for range 150 {
		wg.Go(func() {
			r := do(t, "POST", srv.base+"/mcp", ts.acme, body)
			mu.Lock()
			defer mu.Unlock()
			statuses[r.status]++
			if r.status == http.StatusTooManyRequests {
				refusal = string(r.body)
			}
		})
	}
	// Another token of the org reads meanwhile: the cap was the first
	// token's.
	other, _ := ts.p.token(t, "acme", "read", "")
	stillServes(t, &tenants{p: ts.p, acme: other, acmeIngest: ts.acmeIngest}, srv.base)
	wg.Wait()
	t.Logf("HTTP statuses of 150 reads at once: %v", statuses)
	if statuses[http.StatusTooManyRequests] == 0 || !strings.Contains(refusal, "reads") || statuses[http.StatusOK] == 0 {
		t.Fatalf("want some reads answered and those over the token's cap refused with 429 naming it: %v %s", statuses, refusal)
	}
}
