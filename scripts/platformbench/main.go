//go:build !windows

// Command platformbench measures vx-platform at team scale: it seeds
// WORKSPACES × RUNS × TASKS executions through POST /v1/runs (measuring
// ingest throughput), then calls each team tool over POST /mcp and
// reports p50/p99. It runs the platform's handler in-process on a
// loopback listener over the database given by --db.
//
//	go run ./scripts/platformbench --db URL [--workspaces 100 --runs 100 --tasks 100]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vzn/vx/platform/api"
	"github.com/vzn/vx/platform/store"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

var cpuProfile string

func main() {
	db := flag.String("db", os.Getenv("VX_PLATFORM_DB"), "PostgreSQL URL (an empty database)")
	nws := flag.Int("workspaces", 100, "workspaces")
	nruns := flag.Int("runs", 100, "runs per workspace")
	ntasks := flag.Int("tasks", 100, "tasks per run")
	calls := flag.Int("calls", 300, "calls per tool")
	workers := flag.Int("workers", 8, "concurrent ingest clients")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the ingest phase to this file")
	flag.Parse()
	cpuProfile = *profile
	if err := run(*db, *nws, *nruns, *ntasks, *calls, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "platformbench:", err)
		os.Exit(1)
	}
}

func run(url string, nws, nruns, ntasks, calls, workers int) error {
	ctx := context.Background()
	db, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	ingestTok, readTok, err := benchOrg(ctx, db)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api.New(db.Pool, &api.Options{Version: "bench"})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	ids, err := measureIngest(ctx, db, client, base, ingestTok, nws, nruns, ntasks, workers)
	if err != nil {
		return err
	}
	_, _ = db.Pool.Exec(ctx, "ANALYZE")
	return measureTools(client, base, readTok, ids, nws, nruns, ntasks, calls)
}

// benchOrg makes a fresh organization with an ingest and a read token.
func benchOrg(ctx context.Context, db *store.DB) (ingestTok, readTok string, err error) {
	org := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	if err := tokens.CreateOrg(ctx, db.Pool, org); err != nil {
		return "", "", err
	}
	if _, ingestTok, err = tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: org, Scope: wire.ScopeIngest}); err != nil {
		return "", "", err
	}
	if _, readTok, err = tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: org, Scope: wire.ScopeRead}); err != nil {
		return "", "", err
	}
	return ingestTok, readTok, nil
}

// measureIngest seeds the runs through POST /v1/runs and prints the
// ingest rate and its CPU (this process and PostgreSQL's backends).
func measureIngest(ctx context.Context, db *store.DB, client *http.Client, base, ingestTok string, nws, nruns, ntasks, workers int) (*seeded, error) {
	fmt.Printf("seeding %d workspaces × %d runs × %d tasks = %d executions through POST /v1/runs (%d clients)\n",
		nws, nruns, ntasks, nws*nruns*ntasks, workers)
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
	}
	load0 := loadavg()
	cpu := startCPU(ctx, db.Pool)
	start := time.Now()
	ids, err := seed(client, base, ingestTok, nws, nruns, ntasks, workers)
	if err != nil {
		return nil, err
	}
	took := time.Since(start)
	selfCPU, dbCPU := cpu.stop(ctx)
	if cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	n := float64(nws * nruns)
	fmt.Printf("ingest: %d runs in %s = %.0f runs/s (%.0f executions/s); load average %s at the start, %s at the end\n", nws*nruns, took.Round(time.Millisecond),
		n/took.Seconds(), n*float64(ntasks)/took.Seconds(), load0, loadavg())
	perRun := (selfCPU + dbCPU) / time.Duration(nws*nruns)
	fmt.Printf("ingest CPU: %.2f ms per run (%.2f ms this process: handler, JSON, clients; %.2f ms PostgreSQL backends) = %.0f runs/s per core\n\n",
		ms1(perRun), ms1(selfCPU/time.Duration(nws*nruns)), ms1(dbCPU/time.Duration(nws*nruns)), 1/perRun.Seconds())
	return ids, nil
}

// measureTools calls each team tool calls times with arguments drawn from
// the seeded workspaces and runs, and prints a row of p50 and p99 each.
func measureTools(client *http.Client, base, readTok string, ids *seeded, nws, nruns, ntasks, calls int) error {
	fmt.Println("| tool | calls | p50 | p99 |")
	fmt.Println("|---|---|---|---|")
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() (string, string) {
		w := rng.IntN(nws)
		return ids.ws[w], ids.runs[w][1+rng.IntN(nruns-1)]
	}
	tools := []struct {
		name string
		args func() map[string]any
	}{
		{"list_workspaces", func() map[string]any { return map[string]any{} }},
		{"list_runs", func() map[string]any { w, _ := pick(); return map[string]any{"workspace": w} }},
		{"get_run", func() map[string]any { w, r := pick(); return map[string]any{"workspace": w, "runId": r} }},
		{"run_trends", func() map[string]any {
			w, _ := pick()
			return map[string]any{"workspace": w, "bucket": "day", "limit": 30}
		}},
		{"cache_stats", func() map[string]any { w, _ := pick(); return map[string]any{"workspace": w} }},
		{"why_did_rerun", func() map[string]any {
			w, r := pick()
			return map[string]any{"workspace": w, "runId": r, "taskId": fmt.Sprintf("p%02d#build", rng.IntN(ntasks))}
		}},
		{"compare_runs", func() map[string]any { w, r := pick(); return map[string]any{"workspace": w, "runId": r} }},
	}
	for _, tl := range tools {
		var lat []time.Duration
		for i := 0; i < calls; i++ {
			t0 := time.Now()
			if err := callTool(client, base, readTok, tl.name, tl.args()); err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("| %s | %d | %s | %s |\n", tl.name, calls, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]))
	}
	return nil
}

func ms1(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

type seeded struct {
	ws   []string   // slugs
	runs [][]string // run ids per workspace, oldest first
}

// seed pushes every run; each run re-executes a tenth of the tasks with a
// new key (one changed file) and hits the rest.
func seed(client *http.Client, base, tok string, nws, nruns, ntasks, workers int) (*seeded, error) {
	s := &seeded{ws: make([]string, nws), runs: make([][]string, nws)}
	type job struct{ w, r int }
	jobs := make(chan job)
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for i := 0; i < nws; i++ {
		s.ws[i] = fmt.Sprintf("ws-%03d", i)
		s.runs[i] = make([]string, nruns)
		for r := range s.runs[i] {
			s.runs[i][r] = fmt.Sprintf("%06x%06x", i, r)
		}
	}
	epoch := time.Now().Add(-30 * 24 * time.Hour)
	for k := 0; k < workers; k++ {
		wg.Go(func() {
			for j := range jobs {
				doc := runDoc(s.ws[j.w], s.runs[j.w][j.r], j.r, ntasks, epoch.Add(time.Duration(j.r)*30*24*time.Hour/time.Duration(nruns)))
				b, _ := json.Marshal(doc)
				if err := post(client, base+wire.PlatformRunsPath, tok, b); err != nil {
					firstErr.CompareAndSwap(nil, err)
				}
			}
		})
	}
	// Runs of one workspace go in order (as vx pushes them); workspaces interleave.
	for r := 0; r < nruns; r++ {
		for w := 0; w < nws; w++ {
			jobs <- job{w, r}
		}
	}
	close(jobs)
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return nil, err
	}
	return s, nil
}

func key(task, gen int) string { return fmt.Sprintf("%016x%016x", task+1, gen+1) }

func runDoc(ws, id string, r, ntasks int, started time.Time) *wire.PushRun {
	zero := 0
	doc := &wire.PushRun{Workspace: ws, RunID: id, Command: "vx run build", GitBranch: "main", GitCommit: fmt.Sprintf("%040x", r),
		StartedAt: started, Status: "passed", ExitCode: &zero, DurationMs: 12000, Components: map[string]json.RawMessage{}}
	end := started.Add(12 * time.Second)
	doc.EndedAt = &end
	for t := 0; t < ntasks; t++ {
		// Task t changes every 10 runs, offset by t: a tenth re-run each time.
		gen := (r + t%10) / 10
		changed := r == 0 || (r+t%10)%10 == 0
		row := wire.PushTask{TaskRow: wire.TaskRow{TaskID: fmt.Sprintf("p%02d#build", t), Project: fmt.Sprintf("p%02d", t), Task: "build",
			Status: "passed", Cache: "hit", CacheSource: "local", Key: key(t, gen), DurationMs: 5, ExitCode: &zero}}
		if t%3 == 0 {
			row.CacheSource = "remote"
		}
		if changed {
			row.Cache, row.CacheSource, row.DurationMs = "miss", "", int64(500+t*10)
			n := int64(10000 + t)
			row.EntryBytes = &n
			c, _ := json.Marshal(map[string]any{"runner": "vx-key/1", "global": map[string]string{},
				"definition": map[string]string{"command": "tsc -b"}, "env": map[string]string{},
				"files": map[string]string{"src/index.ts": fmt.Sprintf("%016x", gen), "package.json": "0123456789abcdef"},
				"deps":  map[string]string{}})
			doc.Components[row.Key] = c
			doc.Totals.Passed++
		} else {
			doc.Totals.Passed++
			doc.Totals.Cached++
		}
		doc.Totals.Tasks++
		doc.Tasks = append(doc.Tasks, row)
	}
	return doc
}

func post(client *http.Client, url, tok string, body []byte) error {
	status, b, err := postJSON(client, url, tok, body)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return fmt.Errorf("POST %s: %d %s", url, status, b)
	}
	return nil
}

func callTool(client *http.Client, base, tok, name string, args map[string]any) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	status, out, err := postJSON(client, base+wire.MCPPath, tok, b)
	if err != nil {
		return err
	}
	if status != 200 || bytes.Contains(out, []byte(`"isError":true`)) || bytes.Contains(out, []byte(`"error":{`)) {
		return fmt.Errorf("%s: %d %s", name, status, strings.TrimSpace(string(out[:min(len(out), 400)])))
	}
	return nil
}

// postJSON POSTs body as JSON with the bearer token and gives the status
// and the answer's body.
func postJSON(client *http.Client, url, tok string, body []byte) (int, []byte, error) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}
