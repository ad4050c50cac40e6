package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// startConfined starts cmd under an enforce (or report) policy allowing
// writes beneath dir/dist, and checks which start was taken: on amd64 the
// task is cloned by vx itself, with no thread of its own.
func startConfined(t *testing.T, mode string, dir string, cmd *exec.Cmd) (*Session, error) {
	t.Helper()
	v := Detect()
	if !v.Landlock || v.Observer == "" {
		t.Fatalf("this host cannot sandbox (%s); these tests need Landlock and seccomp user notification", v.Reason)
	}
	dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
	p := &Policy{Landlock: mode == wire.SandboxEnforce, Observe: true, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
	p.Resolve()
	s, err := Start(cmd, p)
	if err == nil && runtime.GOARCH == "amd64" && s.io == nil {
		t.Fatal("on amd64 a session must be forked, not started from a confined thread")
	}
	return s, err
}

// openFds counts vx's descriptors, the hub's epoll set (made once a
// process) included.
func openFds(t *testing.T) int {
	t.Helper()
	if err := observers.start(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// startShell starts /bin/sh -c command in dir, in its own process group,
// under startConfined's policy; its output is in the buffer.
func startShell(t *testing.T, mode, dir, command string) (*exec.Cmd, *Session, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s, err := startConfined(t, mode, dir, cmd)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, s, out
}

// fileAppears waits up to within for path to exist.
func fileAppears(path string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func noChildLeft(t *testing.T) {
	t.Helper()
	var ws syscall.WaitStatus
	if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); err != syscall.ECHILD {
		t.Fatalf("a child was left unreaped: wait4 = %d, %v", pid, err)
	}
}

func TestStartReportsTheChildsFailure(t *testing.T) {
	dir := t.TempDir()
	before := openFds(t)
	for _, c := range []struct {
		name  string
		setup func(*exec.Cmd)
		errno syscall.Errno
		stage string
	}{
		{"exec of a directory", func(c *exec.Cmd) { c.Path = dir }, syscall.EACCES, "execve"},
		{"missing working directory", func(c *exec.Cmd) { c.Dir = filepath.Join(dir, "missing") }, syscall.ENOENT, "chdir"},
	} {
		for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
			cmd := exec.Command("/bin/sh", "-c", "exit 0")
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			c.setup(cmd)
			s, err := startConfined(t, mode, dir, cmd)
			if err == nil {
				s.Wait()
				s.Finish()
				t.Fatalf("%s (%s): started", c.name, mode)
			}
			if !errors.Is(err, c.errno) {
				t.Fatalf("%s (%s): error %v, want %v", c.name, mode, err, c.errno)
			}
			if runtime.GOARCH == "amd64" && !strings.Contains(err.Error(), c.stage) {
				t.Fatalf("%s (%s): error %q does not say it failed at %s", c.name, mode, err, c.stage)
			}
			noChildLeft(t)
		}
	}
	if after := openFds(t); after != before {
		t.Fatalf("vx holds %d descriptors after failed starts, %d before", after, before)
	}
}

// fdList is a task that lists its descriptors (and what each is, inode
// numbers left out), run with the given start.
const fdList = `for f in /proc/$$/fd/*; do echo "${f##*/} $(readlink $f | sed 's/\[.*\]//')"; done`

func TestTaskInheritsOnlyItsStdio(t *testing.T) {
	dir := t.TempDir()
	// What an unconfined task inherits (vx's own non-close-on-exec
	// descriptors, if its parent left any) is the reference.
	plain := exec.Command("/bin/sh", "-c", fdList)
	var want bytes.Buffer
	plain.Dir, plain.Stdout = dir, &want
	if err := plain.Run(); err != nil {
		t.Fatal(err)
	}
	before := openFds(t)
	for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
		var out bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", fdList)
		cmd.Dir, cmd.Stdout = dir, &out
		s, err := startConfined(t, mode, dir, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Wait(); err != nil {
			t.Fatalf("%s: %v: %s", mode, err, out.String())
		}
		if vs := s.Finish(); len(vs) != 0 {
			t.Fatalf("%s: violations %+v", mode, vs)
		}
		if got := out.String(); got != want.String() {
			t.Fatalf("%s: the confined task's descriptors are\n%s\nan unconfined one's\n%s(no listener, socket, ruleset or pipe of vx's may reach it)", mode, got, want.String())
		}
		for _, kind := range []string{"socket:", "anon_inode:"} {
			if strings.Contains(out.String(), kind) {
				t.Fatalf("%s: the task holds a %s descriptor: %s", mode, kind, out.String())
			}
		}
	}
	noChildLeft(t)
	if after := openFds(t); after != before {
		t.Fatalf("vx holds %d descriptors after the tasks, %d before", after, before)
	}
}

func TestStdioReachesTheTask(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `read l; echo "got $l"; echo oops >&2; mkdir -p dist && echo x > dist/out; exit 3`)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, strings.NewReader("in\n"), &stdout, &stderr
	s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("Wait = %v, state %v: want the task's exit status 3", err, cmd.ProcessState)
	}
	if _, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); !ok {
		t.Fatal("the process state has no resource usage (the runner reads its peak memory and CPU)")
	}
	if vs := s.Finish(); len(vs) != 0 {
		t.Fatalf("violations %+v", vs)
	}
	if stdout.String() != "got in\n" || stderr.String() != "oops\n" {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}

	// An *os.File is the task's own descriptor; a nil Stdin reads nothing.
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd = exec.Command("/bin/sh", "-c", `cat; echo file`)
	cmd.Dir, cmd.Stdout = dir, f
	if s, err = startConfined(t, wire.SandboxReport, dir, cmd); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Finish()
	if b, _ := os.ReadFile(f.Name()); string(b) != "file\n" {
		t.Fatalf("file output %q", b)
	}
}

func TestTaskHasItsOwnProcessGroup(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `cut -d' ' -f5 /proc/$$/stat`)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err, out.String())
	}
	s.Finish()
	if got := strings.TrimSpace(out.String()); got != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("the task's process group is %s, want its own (%d)", got, cmd.Process.Pid)
	}
	// A setting the forked start does not make (a session of its own) is
	// still honoured: that command starts from a confined thread.
	out.Reset()
	cmd = exec.Command("/bin/sh", "-c", `cut -d' ' -f6 /proc/$$/stat; echo x > ../outside`)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	v := Detect()
	dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
	p := &Policy{Landlock: true, Observe: true, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
	p.Resolve()
	if s, err = Start(cmd, p); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	vs := s.Finish()
	if lines := strings.Fields(out.String()); len(lines) == 0 || lines[0] != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("Setsid: the task's session is %q, want its own (%d)", out.String(), cmd.Process.Pid)
	}
	if len(vs) != 1 || !vs[0].Denied {
		t.Fatalf("Setsid: the task is not confined: violations %+v", vs)
	}
}

func TestWaitDelayEndsAWaitHeldByAGrandchild(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	// The grandchild keeps the output pipe open after the task exits.
	cmd := exec.Command("/bin/sh", "-c", `sleep 30 & echo started`)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 50 * time.Millisecond
	s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	s.Finish()
	if !errors.Is(err, exec.ErrWaitDelay) || !cmd.ProcessState.Success() {
		t.Fatalf("Wait = %v (state %v), want exec.ErrWaitDelay after a successful exit", err, cmd.ProcessState)
	}
	if !strings.Contains(out.String(), "started") {
		t.Fatalf("output before the delay is lost: %q", out.String())
	}
}

// The runner starts a task in a cgroup of its own where it can, and
// retries without when the start fails: a cgroup descriptor must reach
// clone3, never be dropped. A directory that is no cgroup makes it fail.
func TestCgroupDescriptorReachesTheClone(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		return // started by os/exec, which is tested upstream
	}
	dir := t.TempDir()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, UseCgroupFD: true, CgroupFD: int(f.Fd())}
	s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
	if err == nil {
		s.Wait()
		s.Finish()
		t.Fatal("a start into a directory that is no cgroup succeeded: the cgroup was not passed to clone3")
	}
	if !strings.Contains(err.Error(), "clone3") {
		t.Fatalf("error %q does not name clone3", err)
	}
	noChildLeft(t)
}

// Go raises vx's own open-file limit; a task gets the one vx was started
// with, confined or not (on a host whose soft limit is below the hard one,
// as the usual 1024 is; where they are equal Go raises nothing).
func TestTaskGetsTheOpenFileLimitOfAnUnconfinedOne(t *testing.T) {
	dir := t.TempDir()
	const limits = "ulimit -Sn; ulimit -Hn"
	plain := exec.Command("/bin/sh", "-c", limits)
	want, err := plain.Output()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", limits)
	cmd.Stdout = &out
	s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Finish()
	if out.String() != string(want) {
		t.Fatalf("a confined task's open-file limits are %q, an unconfined one's %q", out.String(), want)
	}
}

// Tasks started at once each get their own listener and descriptors:
// every one's violation lands in its own session, and its output in its
// own buffer.
func TestConcurrentStartsKeepTheirOwnSessions(t *testing.T) {
	root := t.TempDir()
	const n = 8
	type result struct {
		out string
		vs  []wire.SandboxViolation
		err error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		dir := filepath.Join(root, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", `mkdir -p dist && echo `+strconv.Itoa(i)+` > dist/out; echo x > ../escape-`+strconv.Itoa(i)+`; cat dist/out`)
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
			if err != nil {
				results[i].err = err
				return
			}
			results[i].err = s.Wait()
			results[i].vs = s.Finish()
			results[i].out = out.String()
		}()
	}
	wg.Wait()
	for i, r := range results {
		want := filepath.Join(root, "escape-"+strconv.Itoa(i))
		if r.err != nil {
			t.Fatalf("task %d: %v", i, r.err)
		}
		if !strings.HasSuffix(r.out, strconv.Itoa(i)+"\n") {
			t.Fatalf("task %d: output %q", i, r.out)
		}
		if len(r.vs) != 1 || r.vs[0].Path != want || !r.vs[0].Denied {
			t.Fatalf("task %d: violations %+v, want only its own denied %s", i, r.vs, want)
		}
	}
}

// deep calls f depth frames below the caller, each frame holding 64
// bytes.
//
//go:noinline
func deep(depth int, f func() error) error {
	var pad [64]byte
	if depth == 0 {
		return f()
	}
	pad[depth%len(pad)] = byte(depth)
	err := deep(depth-1, f)
	if pad[depth%len(pad)] != byte(depth) {
		panic("the pad changed")
	}
	return err
}

// The clone's arguments hold the address clone3 writes the pidfd to. A
// goroutine's stack moves when it grows, and when the collector shrinks
// it at a call: a start whose stack moved between preparing and cloning
// must not leave the kernel writing into the old one (the task then
// started with no pidfd, which failed "its pidfd: bad file descriptor"
// and left the child unreaped). Each start here runs on a goroutine whose
// stack grew large and is mostly unused, while the collector runs.
func TestStartSurvivesItsStackMoving(t *testing.T) {
	dir := t.TempDir()
	before := openFds(t)
	stop := make(chan struct{})
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); <-collected }()
	start := func() error {
		cmd := exec.Command("/bin/sh", "-c", "exit 0")
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		s, err := startConfined(t, wire.SandboxEnforce, dir, cmd)
		if err != nil {
			return err
		}
		err = s.Wait()
		s.Finish()
		return err
	}
	for i := range 200 {
		errc := make(chan error, 1)
		go func() {
			deep(200+i, func() error { return nil }) // grow the stack
			errc <- deep(i%40, start)
		}()
		if err := <-errc; err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
	}
	noChildLeft(t)
	if after := openFds(t); after != before {
		t.Fatalf("vx has %d descriptors open after the starts, %d before", after, before)
	}
}

// A task confined by Landlock alone (enforce where violations cannot be
// recorded) makes no notification and is waited for in waitid, not
// through a pidfd: its exit status, output, process group and confinement
// are a watched task's, and a grandchild holding its pipe is cut off by
// WaitDelay.
func TestUnobservedTaskIsWaitedFor(t *testing.T) {
	v := Detect()
	if !v.Landlock {
		t.Fatalf("this host has no Landlock (%s)", v.Reason)
	}
	dir := t.TempDir()
	before := openFds(t)
	start := func(command string) (*exec.Cmd, *Session, *bytes.Buffer) {
		t.Helper()
		var out bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.WaitDelay = 50 * time.Millisecond
		dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
		p := &Policy{Landlock: true, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
		p.Resolve()
		s, err := Start(cmd, p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOARCH == "amd64" && (s.io == nil || s.io.exited != nil) {
			t.Fatal("on amd64 an unobserved task must be forked and waited for without a pidfd")
		}
		return cmd, s, &out
	}
	cmd, s, out := start(`echo in > dist/ok && cat dist/ok; cut -d' ' -f5 /proc/$$/stat; echo x > ../outside-unobserved; exit 7`)
	err := s.Wait()
	vs := s.Finish()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("Wait = %v, want exit status 7", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || lines[0] != "in" || lines[1] != strconv.Itoa(cmd.Process.Pid) || !strings.Contains(lines[2], "ermission denied") {
		t.Fatalf("output %q: want the write inside, its own process group, the write outside denied", out.String())
	}
	if len(vs) != 0 {
		t.Fatalf("violations %+v, want none recorded without an observer", vs)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside-unobserved")); err == nil {
		t.Fatal("the write outside went through")
	}
	cmd, s, out = start(`sleep 30 & echo started`)
	err = s.Wait()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	s.Finish()
	if !errors.Is(err, exec.ErrWaitDelay) || !strings.Contains(out.String(), "started") {
		t.Fatalf("Wait = %v with output %q, want exec.ErrWaitDelay after the output", err, out.String())
	}
	noChildLeft(t)
	if after := openFds(t); after != before {
		t.Fatalf("vx has %d descriptors open after the tasks, %d before", after, before)
	}
}

// The task's waiter answers its notifications until the task's first
// process exits; a process that outlives it is answered by the hub from
// then on: its watched call neither hangs nor goes unrecorded.
func TestCallsAfterTheLeadersExitAreAnswered(t *testing.T) {
	dir := t.TempDir()
	late := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-late")
	marker := filepath.Join(dir, "dist", "done")
	for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
		os.Remove(late)
		os.RemoveAll(filepath.Join(dir, "dist"))
		cmd, s, out := startShell(t, mode, dir, `mkdir -p dist; (sleep 0.2; echo x > `+late+`; echo y > dist/done) >/dev/null 2>&1 &`)
		if err := s.Wait(); err != nil {
			t.Fatalf("%s: %v %s", mode, err, out.String())
		}
		if !fileAppears(marker, 5*time.Second) {
			t.Fatalf("%s: the grandchild's calls after the leader's exit were never answered", mode)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		vs := s.Finish()
		if len(vs) != 1 || vs[0].Path != late || vs[0].Denied != (mode == wire.SandboxEnforce) {
			t.Fatalf("%s: violations %+v, want the grandchild's write to %s", mode, vs, late)
		}
	}
	os.Remove(late)
	noChildLeft(t)
}
