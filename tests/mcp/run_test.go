//go:build !windows

package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runsRecorded lists the run ids in the workspace's history, newest first,
// through `vx last --list --format json` (an empty list when none).
func runsRecorded(t *testing.T, root string) []string {
	t.Helper()
	r := run(t, root, nil, vxBin, "last", "--list", "--format", "json")
	if r.Code != 0 {
		t.Fatalf("vx last --list\n%s", r)
	}
	var out struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("vx last --list --format json: %v\n%s", err, r)
	}
	var ids []string
	for _, r := range out.Runs {
		ids = append(ids, r.ID)
	}
	return ids
}

type runTasksOut struct {
	ExitCode int `json:"exitCode"`
	Summary  *struct {
		RunID string `json:"runId"`
		Tasks []struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"tasks"`
	} `json:"summary"`
}

func (o runTasksOut) ids() []string {
	var out []string
	if o.Summary != nil {
		for _, r := range o.Summary.Tasks {
			out = append(out, r.TaskID)
		}
	}
	slices.Sort(out)
	return out
}

func setRunPolicy(t *testing.T, root, policy string) {
	t.Helper()
	cfg := `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"nap":{"cache":false}}` + policy + `}`
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), cfg)
}

// TestRunPolicy checks mcp.run: false hides runTasks and runs nothing; an
// allow-list refuses other tasks before anything runs while the listed
// tasks' dependsOn still run; true runs anything.
func TestRunPolicy(t *testing.T) {
	t.Run("false", func(t *testing.T) {
		t.Parallel()
		root := workspace(t, "policy")
		setRunPolicy(t, root, `,"mcp":{"run":false}`)
		cs := connectShim(t, root, nil)
		if _, ok := toolNames(t, cs)["runTasks"]; ok {
			t.Errorf("mcp.run false still lists runTasks")
		}
		a, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"test"}}})
		if err == nil && !a.IsError {
			t.Errorf("mcp.run false: runTasks answered")
		}
		if ids := runsRecorded(t, root); len(ids) != 0 {
			t.Errorf("mcp.run false: runs were recorded: %v", ids)
		}
	})
	t.Run("allow-list", func(t *testing.T) {
		t.Parallel()
		root := workspace(t, "policy")
		setRunPolicy(t, root, `,"mcp":{"run":["test"]}`)
		cs := connectShim(t, root, nil)
		tl, ok := toolNames(t, cs)["runTasks"]
		if !ok {
			t.Fatalf("an allow-list hides runTasks")
		}
		if !strings.Contains(tl.Description, "test") {
			t.Errorf("runTasks' description does not say which tasks are allowed: %s", tl.Description)
		}
		for _, tasks := range [][]string{{"lint"}, {"one#lint"}, {"test", "lint"}, {"prep"}} {
			callRefused(t, cs, "runTasks", map[string]any{"tasks": tasks}, firstNotTest(tasks))
			if ids := runsRecorded(t, root); len(ids) != 0 {
				t.Fatalf("refusing %v still ran something: runs %v", tasks, ids)
			}
		}
		a := callOK(t, cs, "runTasks", map[string]any{"tasks": []string{"test"}})
		var out runTasksOut
		a.structured(t, &out)
		want := []string{"one#prep", "one#test", "two#prep", "two#test"}
		if out.ExitCode != 0 || !slices.Equal(out.ids(), want) {
			t.Errorf("runTasks test under an allow-list ran %v (exit %d), want %v: its dependsOn still run", out.ids(), out.ExitCode, want)
		}
		a = callOK(t, cs, "runTasks", map[string]any{"all": true})
		out = runTasksOut{}
		a.structured(t, &out)
		if !slices.Equal(out.ids(), want) {
			t.Errorf("runTasks all under an allow-list ran %v, want only the allowed tasks and their dependsOn %v", out.ids(), want)
		}
	})
	t.Run("true", func(t *testing.T) {
		t.Parallel()
		root := workspace(t, "policy")
		setRunPolicy(t, root, `,"mcp":{"run":true}`)
		cs := connectShim(t, root, nil)
		a := callOK(t, cs, "runTasks", map[string]any{"tasks": []string{"lint"}})
		var out runTasksOut
		a.structured(t, &out)
		if out.ExitCode != 0 || !slices.Equal(out.ids(), []string{"one#lint", "two#lint"}) {
			t.Errorf("mcp.run true: runTasks lint ran %v", out.ids())
		}
		// A refusal before the run: no summary, the CLI's message.
		a = call(t, cs, "runTasks", map[string]any{"tasks": []string{"lnt"}})
		if !a.res.IsError || !strings.Contains(a.text, "lnt") {
			t.Errorf("runTasks of an unknown task: want an isError naming it, got %s", a.raw)
		}
	})
}

func firstNotTest(tasks []string) string {
	for _, s := range tasks {
		if !strings.HasSuffix(s, "test") {
			return s
		}
	}
	return ""
}

// TestRunProgress runs tasks with a progress token: one notification per
// finished task, through the shim and over HTTP.
func TestRunProgress(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			var progress progressLog
			cs := tr.connect(t, root, &mcp.ClientOptions{ProgressNotificationHandler: progress.handle})
			runTestAndLint(t, cs, "progress-1")
			// Notifications sent before the answer may be handled just after it.
			progress.wait(t, 6)
			time.Sleep(100 * time.Millisecond)
			got := progress.all()
			if len(got) != 6 {
				t.Errorf("%d progress notifications for 6 finished tasks", len(got))
			}
			var msgs []string
			for i, n := range got {
				if n.ProgressToken != "progress-1" {
					t.Errorf("notification %d carries token %v", i, n.ProgressToken)
				}
				if n.Total != 6 || n.Progress < 1 || n.Progress > 6 {
					t.Errorf("notification %d: progress %v of %v, want 1..6 of 6", i, n.Progress, n.Total)
				}
				msgs = append(msgs, n.Message)
			}
			for _, id := range []string{"one#prep", "one#test", "one#lint", "two#prep", "two#test", "two#lint"} {
				if !strings.Contains(strings.Join(msgs, "\n"), id) {
					t.Errorf("no progress notification names %s: %q", id, msgs)
				}
			}
		})
	}
}

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
}

func (l *progressLog) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	l.got = append(l.got, req.Params)
	l.mu.Unlock()
}

// wait waits up to 5s for n notifications.
func (l *progressLog) wait(t *testing.T, n int) {
	t.Helper()
	harness.WaitFor(t, 5*time.Second, fmt.Sprintf("%d progress notifications", n), func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.got) >= n
	})
}

// all is a copy of what has come so far.
func (l *progressLog) all() []*mcp.ProgressNotificationParams {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// runTestAndLint runs test and lint of the policy workspace (forced: six
// tasks) with the progress token, and wants it to succeed within 60s.
func runTestAndLint(t *testing.T, cs *mcp.ClientSession, token string) {
	t.Helper()
	p := &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"test", "lint"}, "force": true}}
	p.SetProgressToken(token)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("runTasks: %v %+v", err, res)
	}
}

// TestRunCancelled cancels a runTasks call mid-run: the run is recorded as
// interrupted and no task process survives.
func TestRunCancelled(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			cs := tr.connect(t, root, nil)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"one#nap"}}})
				errc <- err
			}()
			harness.WaitFor(t, 20*time.Second, "the nap task to start", func() bool {
				_, err := os.Stat(filepath.Join(root, "one.napping"))
				return err == nil
			})
			if len(survivors(root)) == 0 {
				t.Fatalf("the nap task runs, but no process carries VX_WORKSPACE_ROOT=%s: the survivor check would see nothing", root)
			}
			cancel()
			if err := <-errc; err == nil {
				t.Errorf("the cancelled call answered")
			}
			var last struct {
				Found bool `json:"found"`
				Run   struct {
					Status string `json:"status"`
				} `json:"run"`
				Tasks []struct {
					TaskID string `json:"taskId"`
					Status string `json:"status"`
				} `json:"tasks"`
			}
			harness.WaitFor(t, 20*time.Second, "the run to be recorded as ended", func() bool {
				r := run(t, root, nil, vxBin, "last", "--format", "json")
				return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &last) == nil && last.Found && last.Run.Status != "running"
			})
			if last.Run.Status != "interrupted" {
				t.Errorf("the cancelled run is recorded as %q, want interrupted (tasks %+v)", last.Run.Status, last.Tasks)
			}
			assertNoSurvivors(t, root)
			// The session still serves.
			callOK(t, cs, "getLastRun", map[string]any{})
		})
	}
}

// survivors lists live processes of the workspace's tasks: vx gives every
// task VX_WORKSPACE_ROOT=root, and children inherit it.
func survivors(root string) []string {
	marker := []byte("VX_WORKSPACE_ROOT=" + root)
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !harness.Alive(pid) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, marker) {
				out = append(out, fmt.Sprintf("pid %d: %s", pid, harness.Cmdline(pid)))
				break
			}
		}
	}
	return out
}

func assertNoSurvivors(t *testing.T, root string) {
	t.Helper()
	var left []string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if left = survivors(root); len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("task processes survived the cancelled run:\n%s", strings.Join(left, "\n"))
}
