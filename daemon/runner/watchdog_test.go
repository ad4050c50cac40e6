//go:build unix

package runner

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestWatchWaitsForTheEnd: a line past the bound does not make the
// watchdog act before vx is gone: the running task's group is killed only
// once the pipe ends.
func TestWatchWaitsForTheEnd(t *testing.T) {
	running := exec.Command("sleep", "60")
	running.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { running.Process.Kill() })
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() { watch(r); close(done) }()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, verbTask+" "+strconv.Itoa(running.Process.Pid)+" "+strconv.Quote("svc#a")+"\n"+
			verbRoot+" "+strings.Repeat("x", 2<<20)+"\n")
		written <- err
	}()
	// io.Pipe: the write returns once all of it was read.
	select {
	case <-done:
		t.Fatal("the watchdog stopped reading after a long line, with vx still alive")
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	<-done
	if !killedByWatch(running) {
		t.Error("the running task's group outlived the end of the pipe")
	}
}

// TestWatchKillsWhatIsLeft: when what vx tells the watchdog ends, the
// groups of the tasks still running are killed, ended ones are left
// alone, and so is a process marked as one of the running tasks' that
// left its group (a task id with a space and a quote, as the line
// protocol quotes it).
func TestWatchKillsWhatIsLeft(t *testing.T) {
	root := t.TempDir()
	id := `svc#odd "name" x`
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		return cmd
	}
	running := start()
	ended := start()
	detached := start(taskIDEnv+"="+id, rootEnv+"="+root)
	other := start(taskIDEnv+"=svc#other", rootEnv+"="+root)

	r, w := io.Pipe()
	done := make(chan struct{})
	go func() { watch(r); close(done) }()
	for _, line := range []string{
		verbRoot + " " + root,
		verbTask + " " + strconv.Itoa(running.Process.Pid) + " " + strconv.Quote(id),
		verbTask + " " + strconv.Itoa(ended.Process.Pid) + " " + strconv.Quote("svc#other"),
		verbDone + " " + strconv.Itoa(ended.Process.Pid),
		verbCgroup + " " + filepath.Join(root, "not-a-cgroup"),
		"nonsense line",
	} {
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	<-done

	for _, tc := range []struct {
		name   string
		cmd    *exec.Cmd
		killed bool
	}{
		{"the running task's group", running, true},
		{"the running task's detached process", detached, true},
		{"the ended task's group", ended, false},
		{"another task's marked process", other, false},
	} {
		if got := killedByWatch(tc.cmd); got != tc.killed {
			t.Errorf("%s: killed %v, want %v", tc.name, got, tc.killed)
		}
	}
}

// killedByWatch says whether the watchdog killed cmd: every kill it makes
// is sent before watch returns, so a SIGTERM sent now ends only what it
// left alone, and how cmd died tells which.
func killedByWatch(cmd *exec.Cmd) bool {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}
