//go:build !windows

package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/runner"
)

// TestKilledRunLeavesNoTaskProcess: when vx run is killed with -9 while a
// task runs, no process of the task outlives it, not even one the task
// double-forked or that started a session of its own (setsid): the
// sleepers that would write a file 3 s later never write it, and the run
// reads as interrupted. Both ways vx starts a task are covered: os/exec
// (detach) and the sandbox's own clone (confined), each with a cgroup
// where this host gives vx one, and without (as where it does not).
func TestKilledRunLeavesNoTaskProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, task string
		env        []string
	}{
		{"detach", "detach", nil},
		{"confined", "confined", nil},
		{"detach without cgroup", "detach", []string{runner.NoCgroupEnv + "=1"}},
		{"confined without cgroup", "confined", []string{runner.NoCgroupEnv + "=1"}},
	} {
		task := tc.task
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "orphans")
			cmd := exec.Command(vxBin, "run", task)
			cmd.Dir = ws
			cmd.Env = append(baseEnv(), tc.env...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForFile(t, cmd, filepath.Join(ws, "started"))
			var before lastRun
			answerJSON(t, ws, &before, "last")
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			killed := time.Now()

			// (in the confined task a sleeper's write may fail, vx's
			// observer being gone: its staying alive is what counts).
			assertSleepersGone(t, ws, task, killed)
			var read lastRun
			answerJSON(t, ws, &read, "last", "--run", before.Run.ID)
			if read.Run.Status != "interrupted" {
				t.Errorf("vx last after kill -9: status %q, want interrupted", read.Run.Status)
			}
		})
	}
}

// TestKilledRunSparesAnotherRun: two vx runs in one workspace, one killed
// with -9: the processes of its task are killed, those of the other run's
// task (same workspace, another task) are not, with a cgroup and without.
func TestKilledRunSparesAnotherRun(t *testing.T) {
	t.Parallel()
	for _, tc := range cgroupCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "orphans")
			start := func(task, marker string) *exec.Cmd {
				cmd := exec.Command(vxBin, "run", task)
				cmd.Dir = ws
				cmd.Env = append(baseEnv(), tc.env...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				waitForFile(t, cmd, filepath.Join(ws, marker))
				return cmd
			}
			other := start("bystander", "bystander.started")
			defer func() { other.Process.Kill(); other.Wait() }()
			killed := start("detach", "started")
			if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed.Wait()
			assertSleepersGone(t, ws, "detach", time.Now())
			if len(taskSurvivors(ws, "svc#bystander")) == 0 {
				t.Errorf("the other run's task was killed with the killed run's")
			}
			if err := other.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			other.Wait()
			if left := taskSurvivors(ws, "svc#bystander"); len(left) != 0 {
				t.Errorf("the other run's task outlived its interrupt: %v", left)
			}
		})
	}
}

// cgroupCases runs a test with a cgroup where this host gives vx one,
// and without (as where it does not).
var cgroupCases = []struct {
	name string
	env  []string
}{
	{"cgroup", nil},
	{"without cgroup", []string{runner.NoCgroupEnv + "=1"}},
}

// taskSurvivors lists live processes carrying task id's mark in the
// workspace at root.
func taskSurvivors(root, id string) []string {
	return survivorsWith(root, "VX_TASK_ID="+id)
}

// TestEndedTaskLeavesNoProcess: when a task ends, what it left running
// detached from it (double-forked, or in a session of its own) is killed
// with it; none of it outlives the run.
func TestEndedTaskLeavesNoProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, task string
		env        []string
	}{
		{"plain", "leave", nil},
		{"many", "leaveMany", nil},
		{"confined", "leaveConfined", nil},
		{"plain without cgroup", "leave", []string{runner.NoCgroupEnv + "=1"}},
		{"many without cgroup", "leaveMany", []string{runner.NoCgroupEnv + "=1"}},
		{"confined without cgroup", "leaveConfined", []string{runner.NoCgroupEnv + "=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "orphans")
			start := time.Now()
			runJSON(t, ws, tc.env, 0, tc.task)
			assertSleepersGone(t, ws, tc.task, start)
		})
	}
}

// TestEndedTaskLeavesNoZombie: what vx killed when a task ended (its
// orphans come to vx, their subreaper, where vx has no cgroup) is reaped
// then, not left as zombies of vx for the rest of the run.
func TestEndedTaskLeavesNoZombie(t *testing.T) {
	t.Parallel()
	for _, tc := range cgroupCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "orphans")
			cmd := exec.Command(vxBin, "run", "afterLeave")
			cmd.Dir = ws
			cmd.Env = append(baseEnv(), tc.env...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			waitForFile(t, cmd, filepath.Join(ws, "after.started"))
			if z := zombieChildren(cmd.Process.Pid); len(z) > 0 {
				t.Errorf("vx holds zombies after svc#leave ended: %v", z)
			}
			if left := taskSurvivors(ws, "svc#leave"); len(left) > 0 {
				t.Errorf("svc#leave ended, but its processes live on:\n%s", strings.Join(left, "\n"))
			}
		})
	}
}

// zombieChildren lists pid's children that are zombies.
func zombieChildren(pid int) []string {
	files, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			stat, _ := os.ReadFile(filepath.Join("/proc", c, "stat"))
			if statState(stat) == "state Z" {
				out = append(out, c)
			}
		}
	}
	return out
}

// assertSleepersGone fails when a process of the task's detached sleepers
// (which write escaped.* 3 s after they start) is alive 2.5 s after since,
// or wrote its file: vx promises them gone within a second of its end (or
// of the task's). It waits past the 3 s, so that one that escaped unseen
// shows by its file.
func assertSleepersGone(t *testing.T, ws, task string, since time.Time) {
	t.Helper()
	for left := taskSurvivors(ws, "svc#"+task); len(left) > 0; left = taskSurvivors(ws, "svc#"+task) {
		if time.Since(since) > 2500*time.Millisecond {
			t.Errorf("processes of svc#%s outlived it:\n%s", task, strings.Join(left, "\n"))
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Until(since.Add(4500 * time.Millisecond)))
	for _, f := range []string{"escaped.setsid", "escaped.fork"} {
		if exists(filepath.Join(ws, f)) {
			t.Errorf("a process of svc#%s outlived it and wrote %s", task, f)
		}
	}
}

// waitForFile waits until the task cmd runs has created path, and kills
// cmd and fails when it never does.
func waitForFile(t *testing.T, cmd *exec.Cmd, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !exists(path) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
