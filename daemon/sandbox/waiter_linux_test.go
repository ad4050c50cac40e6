package sandbox

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
			cmd, s, out := startShell(t, mode, dir, command)
			if err := s.Wait(); err != nil {
				t.Fatalf("%s: %q: %v %s", mode, command, err, out.String())
			}
			err := waitAgain(t, s)
			if err == nil || !strings.Contains(err.Error(), "already called") {
				t.Fatalf("%s: %q: second Wait = %v, want exec's 'Wait was already called'", mode, command, err)
			}
			if strings.Contains(command, "&") && !fileAppears(marker, 5*time.Second) {
				t.Fatalf("%s: the grandchild's calls were never answered", mode)
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
		cmd, s, out := startShell(t, mode, dir, `mkdir -p dist; echo x > `+outside+`; echo y > dist/started`)
		if !fileAppears(marker, 10*time.Second) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			s.Wait()
			s.Finish()
			t.Fatalf("%s: the task has not got past its watched calls in 10 s without Wait: it waits for Wait to answer them", mode)
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

// Sessions at once, each with a grandchild making watched calls across
// its leader's exit (answered by the waiter, then the hub, on listener
// numbers other sessions' ended listeners had): every call is answered,
// and each violation lands in its own session, none lost or doubled.
func TestViolationsSurviveTheHandoffToTheHub(t *testing.T) {
	root := t.TempDir()
	const workers, rounds, late, early = 4, 10, 40, 5
	errs := make(chan error, workers*rounds*2)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				name := fmt.Sprintf("%d-%d", w, r)
				dir, esc := filepath.Join(root, name), filepath.Join(root, "esc-"+name)
				for _, d := range []string{filepath.Join(dir, "dist"), esc} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						errs <- err
						return
					}
				}
				cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf(`(i=0; while [ $i -lt %d ]; do : > %s/late$i; i=$((i+1)); done; : > dist/done) >/dev/null 2>&1 &
i=0; while [ $i -lt %d ]; do : > %s/early$i; i=$((i+1)); done`, late, esc, early, esc))
				cmd.Dir = dir
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				s, err := startConfined(t, wire.SandboxReport, dir, cmd)
				if err != nil {
					errs <- err
					return
				}
				if err := s.Wait(); err != nil {
					errs <- fmt.Errorf("%s: %v %s", name, err, out.String())
				}
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
					if _, err := os.Stat(filepath.Join(dir, "dist", "done")); err == nil {
						break
					}
					if time.Now().After(deadline) {
						errs <- fmt.Errorf("%s: the grandchild's calls were not all answered in 10 s", name)
						break
					}
				}
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				vs := s.Finish()
				if len(vs) != late+early {
					errs <- fmt.Errorf("%s: %d violations, want %d", name, len(vs), late+early)
				}
				for _, v := range vs {
					if filepath.Dir(v.Path) != esc {
						errs <- fmt.Errorf("%s: another session's violation %s", name, v.Path)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	noChildLeft(t)
}

// A task killed at any moment, its calls and its grandchildren's (one in a
// session of its own, out of the killed group) in flight: Wait returns,
// and no descriptor or child of vx is left.
func TestTaskKilledMidNotificationLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	esc := filepath.Dir(dir)
	procDir() // opened once, at the first inspection
	before := openFds(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		mode := []string{wire.SandboxEnforce, wire.SandboxReport}[i%2]
		cmd := exec.Command("/bin/sh", "-c", `(while :; do : > `+esc+`/killed-x; done) & `+
			`(setsid sh -c 'i=0; while [ $i -lt 50 ]; do : > dist/y 2>/dev/null; i=$((i+1)); done') & `+
			`while :; do : > `+esc+`/killed-y; done`)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.WaitDelay = 100 * time.Millisecond
		s, err := startConfined(t, mode, dir, cmd)
		if err != nil {
			t.Fatal(err)
		}
		kill := time.AfterFunc(time.Duration(rnd.IntN(20000))*time.Microsecond, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		done := make(chan error, 1)
		go func() { done <- s.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("kill %d: Wait has not returned 10 s after the task was killed", i)
		}
		kill.Stop()
		s.Finish()
	}
	os.Remove(filepath.Join(esc, "killed-x"))
	os.Remove(filepath.Join(esc, "killed-y"))
	noChildLeft(t)
	if after := openFds(t); after != before {
		t.Fatalf("vx has %d descriptors open after the killed tasks, %d before", after, before)
	}
}
