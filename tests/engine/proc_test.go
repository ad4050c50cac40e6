//go:build !windows

package engine_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "proc")
	s, r := runJSON(t, ws, nil, 1, "hang")
	row := s.row(t, "svc#hang")
	if row.Status != "timedOut" || !row.TimedOut || row.Reason == "" {
		t.Errorf("svc#hang: status %s timedOut %v reason %q; want timedOut with a reason", row.Status, row.TimedOut, row.Reason)
	}
	if s.OK || s.ExitCode != 1 {
		t.Errorf("run ok=%v exitCode=%d, want false, 1", s.OK, s.ExitCode)
	}
	if !exists(filepath.Join(ws, "hang.pid")) {
		t.Fatalf("the task never started\n%s", r)
	}
	assertNoSurvivors(t, ws)
}

func TestInterruptStopsEveryChild(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "proc")
	cmd := exec.Command(vxBin, "run", "next")
	cmd.Dir = ws
	cmd.Env = baseEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(ws, "wait.started")
	deadline := time.Now().Add(30 * time.Second)
	for !exists(started) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("svc#wait never started\nstdout:\n%s\nstderr:\n%s", &stdout, &stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("vx died of %v instead of handling SIGINT", ws.Signal())
		}
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 130 {
		t.Errorf("exit code %d after SIGINT, want 130\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	assertNoSurvivors(t, ws)
	if exists(filepath.Join(ws, "next.ran")) {
		t.Errorf("svc#next ran after the interrupt")
	}

	var last struct {
		Run struct {
			Status   string `json:"status"`
			ExitCode *int   `json:"exitCode"`
		} `json:"run"`
		Tasks []struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"tasks"`
	}
	answerJSON(t, ws, &last, "last")
	if last.Run.Status != "interrupted" || last.Run.ExitCode == nil || *last.Run.ExitCode != 130 {
		t.Errorf("vx last: run status %q exitCode %v, want interrupted, 130", last.Run.Status, last.Run.ExitCode)
	}
	for _, ex := range last.Tasks {
		if ex.TaskID == "svc#wait" && ex.Status != "interrupted" {
			t.Errorf("vx last: svc#wait status %s, want interrupted", ex.Status)
		}
		if ex.Status == "passed" {
			t.Errorf("vx last: %s passed in an interrupted run", ex.TaskID)
		}
	}
	if !strings.Contains(stdout.String(), "interrupted") {
		t.Errorf("the footer does not say the run was interrupted\n%s", &stdout)
	}
}
