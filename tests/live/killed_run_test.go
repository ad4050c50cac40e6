//go:build !windows

package live_test

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// TestKilledRunIsNotReplayed: the feed replays the runs under way to a
// page that connects late; a vx run killed with -9 never says it ended,
// and its history reads it as interrupted. A page that connects after the
// kill must not be handed it as a run under way (it would show "running"
// until eight more runs start, whatever the page is reloaded).
func TestKilledRunIsNotReplayed(t *testing.T) {
	root := filepath.Join(harness.TempRoot(t), "ws")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {"hang": {"cache": false}, "ok": {"cache": false}}}`)
	harness.WriteFile(t, filepath.Join(root, "packages/app/package.json"), `{"name": "app", "scripts": {"hang": "sleep 20", "ok": "true"}}`)
	t.Cleanup(func() { stopDaemon(t, root) })
	d := startDaemon(t, root)
	first := readFeed(dialFeed(t, d, bearerHeader(d.token), nil))

	cmd := exec.Command(vxBin, "run", "hang")
	cmd.Dir, cmd.Env = root, baseEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := ""
	for killed == "" {
		select {
		case e := <-first.events:
			if e.Type == wire.EventTaskStarted && e.TaskID == "app#hang" {
				killed = e.RunID
			}
		case <-first.done:
			t.Fatalf("the feed ended: %v", first.err)
		case <-time.After(time.Minute):
			t.Fatal("app#hang never started on the feed")
		}
	}
	_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()

	late := readFeed(dialFeed(t, d, bearerHeader(d.token), nil))
	sum := vxRun(t, root, "ok")
	for _, e := range runEvents(late.untilRunFinished(t, time.Minute)) {
		if e.RunID == killed {
			t.Fatalf("the run killed with -9 (%s) was replayed as under way: %s %s", killed, e.Type, e.TaskID)
		}
		if e.RunID != sum.RunID {
			t.Fatalf("an event of another run (%s) than the one started (%s): %s", e.RunID, sum.RunID, e.Type)
		}
	}
}
