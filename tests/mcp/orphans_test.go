//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestRunTasksDeathLeavesNoTaskProcess: when vxd, or the `vx run` child
// it started for runTasks, is killed with -9 while a task runs, no process
// of the task outlives it, not even one the task double-forked or that
// started a session of its own: the sleepers that would write a file 3 s
// later never write it, and the run reads as interrupted.
func TestRunTasksDeathLeavesNoTaskProcess(t *testing.T) {
	for _, tc := range []struct {
		name   string
		victim func(t *testing.T, vxd int) int
	}{
		{"vxd killed", func(t *testing.T, vxd int) int { return vxd }},
		{"its vx run killed", runChildOf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "orphans")
			endpoint, token, st := startDaemon(t, root)
			cs := connectHTTP(t, endpoint, token, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go cs.CallTool(ctx, &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"svc#detach"}}})
			harness.WaitFor(t, 20*time.Second, "the detach task to start", func() bool {
				_, err := os.Stat(filepath.Join(root, "started"))
				return err == nil
			})
			if err := syscall.Kill(tc.victim(t, st.PID), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			// Gone within a second is the promise; the sleepers live 3 s,
			// so one seen 2.5 s on has escaped.
			for left := survivors(root); len(left) > 0; left = survivors(root) {
				if time.Since(killed) > 2500*time.Millisecond {
					t.Errorf("processes of svc#detach outlived it:\n%s", strings.Join(left, "\n"))
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(time.Until(killed.Add(4500 * time.Millisecond)))
			for _, f := range []string{"escaped.setsid", "escaped.fork"} {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil {
					t.Errorf("a process of svc#detach outlived it and wrote %s", f)
				}
			}
			var last struct {
				Run struct {
					Status string `json:"status"`
				} `json:"run"`
			}
			harness.WaitFor(t, 20*time.Second, "the run to be recorded as ended", func() bool {
				r := run(t, root, nil, vxBin, "last", "--format", "json")
				return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &last) == nil && last.Run.Status != "running"
			})
			if last.Run.Status != "interrupted" {
				t.Errorf("the run is recorded as %q, want interrupted", last.Run.Status)
			}
		})
	}
}

// runChildOf is the `vx run --input=-` vxd started.
func runChildOf(t *testing.T, vxd int) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(vxd) && strings.Contains(harness.Cmdline(pid), "--input=-") {
			return pid
		}
	}
	t.Fatalf("vxd %d has no vx run child", vxd)
	return 0
}
