// Command platformbounds reproduces the batch attack on vx-platform's
// memory and prints the server's peak RSS: it runs a real `vx-platform
// serve` over the database given by --db, pushes one run of --tasks tasks
// with an ingest token, then has --clients clients with one read token
// each post, at once, a batch of about 2 KB of get_run and compare_runs
// calls on that run, --rounds times. The peak (VmHWM, reset after the
// push) is the figure docs/benchmarks.md ("Bounds") records.
//
//	scripts/platformbounds.sh [--tasks 20000 --clients 8 --rounds 3]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/platform/store"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

func main() {
	db := flag.String("db", os.Getenv("VX_PLATFORM_DB"), "PostgreSQL URL (an empty database)")
	bin := flag.String("platform", "vx-platform", "the vx-platform binary")
	ntasks := flag.Int("tasks", wire.MaxPushTasks, "tasks of the pushed run")
	clients := flag.Int("clients", 8, "concurrent clients")
	rounds := flag.Int("rounds", 3, "batches each client posts, one after another")
	flag.Parse()
	if err := run(*db, *bin, *ntasks, *clients, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "platformbounds:", err)
		os.Exit(1)
	}
}

func run(url, bin string, ntasks, clients, rounds int) error {
	ctx := context.Background()
	ingestTok, readTok, err := setUp(ctx, url)
	if err != nil {
		return err
	}
	srv, base, err := serve(bin, url)
	if err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	pid := srv.Process.Pid
	fmt.Printf("vx-platform serve (pid %d): RSS %.0f MiB at start\n", pid, mib(status(pid, "VmRSS")))
	runID := "abcdef012345"
	if err := pushRun(base, ingestTok, runID, ntasks); err != nil {
		return err
	}
	fmt.Printf("pushed a run of %d tasks: peak RSS %.0f MiB during the push, %.0f MiB after\n", ntasks, mib(status(pid, "VmHWM")), mib(status(pid, "VmRSS")))
	// Reset the peak, so that VmHWM is the attack's.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting the peak RSS: %w", err)
	}
	body := batch(runID)
	start := time.Now()
	outcomes := attack(base, readTok, body, clients, rounds)
	fmt.Printf("%d clients × %d rounds of a %d-byte batch (%d calls) with a read token: %s in %s\n",
		clients, rounds, len(body), strings.Count(string(body), `"method"`), outcomes, time.Since(start).Round(time.Millisecond))
	resp, err := http.Get(base + wire.PlatformHealthPath)
	if err != nil {
		return fmt.Errorf("/healthz after the attack: %w", err)
	}
	resp.Body.Close()
	fmt.Printf("/healthz after: %d\n", resp.StatusCode)
	fmt.Printf("peak RSS during the attack: %.0f MiB (VmHWM); RSS after: %.0f MiB\n", mib(status(pid, "VmHWM")), mib(status(pid, "VmRSS")))
	return nil
}

// setUp migrates the database and makes an org with an ingest and a read
// token.
func setUp(ctx context.Context, url string) (ingestTok, readTok string, err error) {
	db, err := store.Open(ctx, url)
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return "", "", err
	}
	org := fmt.Sprintf("bounds-%d", time.Now().UnixNano())
	if err := tokens.CreateOrg(ctx, db.Pool, org); err != nil {
		return "", "", err
	}
	if _, ingestTok, err = tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: org, Scope: wire.ScopeIngest}); err != nil {
		return "", "", err
	}
	_, readTok, err = tokens.Create(ctx, db.Pool, tokens.CreateInput{Org: org, Scope: wire.ScopeRead})
	return ingestTok, readTok, err
}

// serve starts vx-platform serve on a free loopback port and waits for
// /healthz.
func serve(bin, url string) (*exec.Cmd, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--listen", addr, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "VX_PLATFORM_DB="+url)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + wire.PlatformHealthPath); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return cmd, base, nil
			}
		}
	}
	_ = cmd.Process.Kill()
	return nil, "", fmt.Errorf("vx-platform did not answer /healthz within 30s")
}

// pushRun pushes one run of n tasks: every task executed, a third failed
// with a reason, the rest blocked behind one.
func pushRun(base, tok, id string, n int) error {
	zero, one := 0, 1
	t0 := time.Now().Add(-time.Hour).UTC()
	end := t0.Add(10 * time.Minute)
	r := &wire.PushRun{Workspace: "big", RunID: id, Command: "vx run build test lint", GitBranch: "main", GitCommit: strings.Repeat("c", 40),
		StartedAt: t0, EndedAt: &end, ExitCode: &one, Status: "failed", DurationMs: 600000}
	for i := range n {
		p := fmt.Sprintf("packages/service-%05d", i)
		row := wire.PushTask{TaskRow: wire.TaskRow{TaskID: p + "#build", Project: p, Task: "build", Status: "passed", Cache: "miss",
			Key: fmt.Sprintf("%032x", i+1), DurationMs: int64(1000 + i), ExitCode: &zero, PeakRSSBytes: 200 << 20, CPUParallelism: 1.5}}
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
	r.Totals = wire.RunTotals{Tasks: n, Passed: (n + 2) / 3, Failed: n / 3}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	req, _ := http.NewRequest("POST", base+wire.PlatformRunsPath, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("pushing the run (%d bytes): %d %s", len(b), resp.StatusCode, msg)
	}
	return nil
}

// batch is a JSON-RPC batch of get_run and compare_runs calls on run id,
// as many as fit in 2 KB.
func batch(id string) []byte {
	var calls []string
	size := 2
	for i := 1; ; i++ {
		name := "get_run"
		if i%2 == 0 {
			name = "compare_runs"
		}
		c := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"runId":%q}}}`, i, name, id)
		if size+len(c)+1 > 2048 {
			break
		}
		calls = append(calls, c)
		size += len(c) + 1
	}
	return []byte("[" + strings.Join(calls, ",") + "]")
}

// attack has clients post body rounds times each, all at once, and
// tallies the answers: HTTP statuses, and the calls answered, refused as
// too large, or otherwise failed.
func attack(base, tok string, body []byte, clients, rounds int) string {
	var mu sync.Mutex
	tally := map[string]int{}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range rounds {
				for k, v := range post(base, tok, body) {
					mu.Lock()
					tally[k] += v
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	var parts []string
	for _, k := range []string{"HTTP 200", "answered", "too large", "busy", "other error"} {
		if tally[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, tally[k]))
			delete(tally, k)
		}
	}
	for k, v := range tally {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	return strings.Join(parts, ", ")
}

func post(base, tok string, body []byte) map[string]int {
	req, _ := http.NewRequest("POST", base+wire.MCPPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return map[string]int{"transport error": 1}
	}
	defer resp.Body.Close()
	out := map[string]int{fmt.Sprintf("HTTP %d", resp.StatusCode): 1}
	var replies []struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.NewDecoder(resp.Body).Decode(&replies) != nil {
		return out
	}
	for _, r := range replies {
		msg := ""
		switch {
		case r.Error != nil:
			msg = r.Error.Message
		case r.Result != nil && r.Result.IsError && len(r.Result.Content) > 0:
			msg = r.Result.Content[0].Text
		}
		switch {
		case strings.Contains(msg, "too large"):
			out["too large"]++
		case strings.Contains(msg, "busy"):
			out["busy"]++
		case r.Error != nil || r.Result == nil || r.Result.IsError:
			out["other error"]++
		default:
			out["answered"]++
		}
	}
	return out
}

// status reads a field of /proc/PID/status in bytes.
func status(pid int, field string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
