package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// waitAgain calls s.Wait a second time and returns its error, or fails
// the test if it has not returned within a generous while (it hung).
func waitAgain(t *testing.T, s *Session) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("a second Wait has not returned after 10 s: it hangs, as exec.Cmd.Wait's never does")
		return nil
	}
}

// A second Wait, as exec.Cmd's, says Wait was already called. It must not
// wait for the task again: the waiter's pidfd is closed by then, and its
// poll of the listener alone never ended; with a process of the task still
// running it also received notifications beside the hub.
func TestSecondWaitSaysItWasCalled(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "dist", "done")
	for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
		for _, command := range []string{
			"exit 0",
			// A grandchild the hub answers after the leader's exit.
			`mkdir -p dist; (sleep 0.2; echo y > dist/done) >/dev/null 2>&1 &`,
		} {
			os.RemoveAll(filepath.Join(dir, "dist"))
			cmd := exec.Command("/bin/sh", "-c", command)
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			s, err := startConfined(t, mode, dir, cmd)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Wait(); err != nil {
				t.Fatalf("%s: %q: %v %s", mode, command, err, out.String())
			}
			err = waitAgain(t, s)
			if err == nil || !strings.Contains(err.Error(), "already called") {
				t.Fatalf("%s: %q: second Wait = %v, want exec's 'Wait was already called'", mode, command, err)
			}
			if strings.Contains(command, "&") {
				deadline := time.Now().Add(5 * time.Second)
				for {
					if _, err := os.Stat(marker); err == nil {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: the grandchild's calls were never answered", mode)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			s.Finish()
		}
	}
	noChildLeft(t)
}

// A started task runs, as exec.Cmd's does, whether or not Wait has been
// called yet: its watched calls are answered from Start on. A caller may
// do its own work between Start and Wait (feed the task's stdin, read
// another task's output); a task stalled at its first watched call until
// Wait would deadlock it.
func TestTaskRunsBeforeWaitIsCalled(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "dist", "started")
	outside := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-before-wait")
	for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
		os.RemoveAll(filepath.Join(dir, "dist"))
		os.Remove(outside)
		cmd := exec.Command("/bin/sh", "-c", `mkdir -p dist; echo x > `+outside+`; echo y > dist/started`)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		s, err := startConfined(t, mode, dir, cmd)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			if time.Now().After(deadline) {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				s.Wait()
				s.Finish()
				t.Fatalf("%s: the task has not got past its watched calls in 10 s without Wait: it waits for Wait to answer them", mode)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := s.Wait(); err != nil {
			t.Fatalf("%s: %v %s", mode, err, out.String())
		}
		vs := s.Finish()
		if len(vs) != 1 || vs[0].Path != outside || vs[0].Denied != (mode == wire.SandboxEnforce) {
			t.Fatalf("%s: violations %+v, want the write to %s made before Wait", mode, vs, outside)
		}
	}
	os.Remove(outside)
	noChildLeft(t)
}
