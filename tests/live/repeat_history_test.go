//go:build !windows

package live_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// TestRepeatKeepsTheHistoryWhole: a repeat writes its run to the history
// as an ordinary run would. With the history removed, the run after is
// one that records its keys' components (so `vx why` can later say what
// moved); with the history corrupt, the run says it moved it aside.
func TestRepeatKeepsTheHistoryWhole(t *testing.T) {
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	wantNoRepeat(t, root, "vxd's start", "", nil)
	settleRepeat(t, root)

	for _, suffix := range []string{"", "-wal", "-shm"} {
		mustRemove(t, filepath.Join(root, ".vx", "vx.db"+suffix))
	}
	repeatRun(t, root, nil)
	harness.WriteFile(t, filepath.Join(root, "packages/c/src/f1.js"), "edited\n")
	wantNoRepeat(t, root, "an edited input", "c#build", nil)
	r := run(t, root, vxBin, "why", "c#build", "--format", "json")
	var why struct {
		Summary string
		Diff    json.RawMessage
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &why) != nil || len(why.Diff) == 0 || string(why.Diff) == "null" {
		t.Fatalf("vx why after a run on a fresh history: want the files that moved\n%s", r)
	}
	if !strings.Contains(r.Stdout, "f1.js") {
		t.Fatalf("vx why does not name the edited file\n%s", r)
	}

	settleRepeat(t, root)
	for _, suffix := range []string{"-wal", "-shm"} {
		mustRemove(t, filepath.Join(root, ".vx", "vx.db"+suffix))
	}
	if err := os.WriteFile(filepath.Join(root, ".vx", "vx.db"), []byte("not a database, not at all, and long enough to be read as one"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, why2 := repeatRun(t, root, nil)
	moved := false
	for _, w := range s.Warnings {
		moved = moved || strings.Contains(w, "moved it aside")
	}
	if !moved {
		t.Fatalf("the run on a corrupt history does not say it moved it aside: warnings %q, repeatOf %q (%s)", s.Warnings, s.RepeatOf, why2)
	}
}

// TestRepeatReapsDeadRuns: as an ordinary run does, a repeat records a
// run whose vx process is gone (killed with -9) as interrupted, with the
// totals of the executions it recorded.
func TestRepeatReapsDeadRuns(t *testing.T) {
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	wantNoRepeat(t, root, "vxd's start", "", nil)
	rep := settleRepeat(t, root)

	// A run whose process is gone: a child that exited.
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := history.Open(ctx, history.Path(root), nil)
	if err != nil {
		t.Fatal(err)
	}
	dead := &history.Run{ID: history.NewRunID(), Command: "vx run build --force", StartedAt: time.Now(), PID: child.Process.Pid, ProcStart: 1}
	code := 0
	err = h.BeginRun(ctx, dead)
	if err == nil {
		err = h.RecordExecutions(ctx, []history.Execution{{RunID: dead.ID, TaskID: "a#build", Project: "a", Task: "build", Key: rep.Tasks[0].Key,
			Status: history.StatusPassed, Cache: history.CacheHit, ExitCode: &code, StartedAt: time.Now()}})
	}
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	wantRepeat(t, root, &wire.RunSummary{RunID: rep.RepeatOf, Tasks: rep.Tasks})
	ro, err := history.OpenReadOnly(ctx, history.Path(root), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.ResolveRun(ctx, dead.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != history.RunInterrupted || got.Tasks != 1 || got.Cached != 1 || got.EndedAt == nil {
		t.Fatalf("the dead run after a repeat: status %s, %d tasks, %d cached, ended %v; want it reaped as interrupted with its one cached task", got.Status, got.Tasks, got.Cached, got.EndedAt)
	}
}
