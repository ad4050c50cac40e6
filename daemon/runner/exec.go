package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/procmark"
	"github.com/vzn/vx/protocol/wire"
)

// maxLog caps what is kept of one task's output; the rest is counted.
const maxLog = 16 << 20

// capture collects a task's combined output and streams it, line by line
// and masked, to the run's output with the task's prefix.
type capture struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int64
	partial []byte
	emit    func(line []byte)
	// With a secret that spans lines, lines are masked together: the last
	// hold bytes wait for more output so no part of a secret leaves early.
	mask func(string) string
	hold int
	// masker masks what is kept before it is cut to maxLog, so the cap
	// never leaves part of a secret; nil keeps the output as it is.
	masker *secret.Masker
}

func (c *capture) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Past the cap, as many bytes as the longest secret are kept too, so
	// a value that starts before the cap is masked whole.
	if room := maxLog + c.masker.Longest() - c.buf.Len(); room > 0 {
		if len(b) <= room {
			c.buf.Write(b)
		} else {
			c.buf.Write(b[:room])
			c.dropped += int64(len(b) - room)
		}
	} else {
		c.dropped += int64(len(b))
	}
	if c.emit != nil && c.hold > 0 {
		c.partial = []byte(c.mask(string(append(c.partial, b...))))
		if limit := len(c.partial) - c.hold; limit > 0 {
			if cut := bytes.LastIndexByte(c.partial[:limit], '\n'); cut >= 0 {
				for _, line := range bytes.Split(c.partial[:cut], []byte{'\n'}) {
					c.emit(line)
				}
				c.partial = append([]byte(nil), c.partial[cut+1:]...)
			}
		}
		return len(b), nil
	}
	if c.emit != nil {
		c.partial = append(c.partial, b...)
		for {
			i := bytes.IndexByte(c.partial, '\n')
			if i < 0 {
				break
			}
			c.emit(c.partial[:i])
			c.partial = c.partial[i+1:]
		}
	}
	return len(b), nil
}

func (c *capture) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.emit != nil && len(c.partial) > 0 {
		text := c.partial
		if c.mask != nil {
			text = []byte(c.mask(string(text)))
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(text, []byte{'\n'}), []byte{'\n'}) {
			c.emit(line)
		}
		c.partial = nil
	}
}

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept, cut := c.masker.Cut(c.buf.String(), maxLog, c.dropped > 0)
	out := []byte(kept)
	if dropped := c.dropped + int64(cut); dropped > 0 {
		out = append(out, fmt.Sprintf("\n[vx: %d more bytes of output were not kept]\n", dropped)...)
	}
	return out
}

// result is what one execution of a command produced.
type result struct {
	exitCode       int
	timedOut       bool
	interrupted    bool
	startErr       error
	duration       time.Duration
	peakRSS        int64
	cpuParallelism float64
	violations     []wire.SandboxViolation
}

// Every task's environment names its task and workspace; processes it
// starts inherit them, which marks them as the task's (procs.go).
const (
	taskIDEnv = "VX_TASK_ID"
	rootEnv   = procmark.RootEnv
)

// taskEnv builds the task's environment: PATH with node_modules/.bin of
// the project then the root, a small base set, the declared env and
// passEnv names, exec.env, and the npm_package_* variables.
func (r *run) taskEnv(n *workspace.Node, dir string) []string {
	m := r.p.Model
	env := r.p.Env
	out := map[string]string{}
	base := []string{"HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TERM", "LANG", "TZ", "CI", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "NODE_OPTIONS"}
	for _, name := range append(base, osEnvNames...) {
		if v, ok := env[name]; ok {
			out[name] = v
		}
	}
	for k, v := range env {
		if strings.HasPrefix(k, "LC_") {
			out[k] = v
		}
	}
	for _, list := range [][]string{m.Config.Env, m.Config.PassEnv, n.Def.Env, n.Def.PassEnv} {
		for _, name := range list {
			if v, ok := env[name]; ok {
				out[name] = v
			}
		}
	}
	for name, v := range n.Def.ExecEnv {
		if v.Value != nil {
			out[name] = *v.Value
		} else if val, ok := env[name]; ok {
			out[name] = val
		}
	}
	pathKey, path := envPath(env)
	bins := []string{filepath.Join(m.Root, "node_modules", ".bin")}
	if dir != m.Root {
		bins = append([]string{filepath.Join(dir, "node_modules", ".bin")}, bins...)
	}
	out[pathKey] = strings.Join(append(bins, path), string(os.PathListSeparator))
	if n.Project != workspace.RootProject {
		if p, ok := m.Project(n.Project); ok {
			out["npm_package_name"] = p.Name
			out["npm_package_version"] = p.Version
			out["npm_package_json"] = filepath.Join(dir, "package.json")
		}
	}
	out["npm_lifecycle_event"] = n.Task
	out["npm_lifecycle_script"] = n.Def.Command
	out["INIT_CWD"] = dir
	out[taskIDEnv] = n.ID
	out[rootEnv] = m.Root
	list := make([]string, 0, len(out))
	for k, v := range out {
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	return list
}

// execute runs the node's command through sh -c in its own process group
// (and cgroup, where there is one: procs.go). A timeout or a cancelled ctx
// kills the whole group.
func (r *run) execute(ctx context.Context, n *workspace.Node, out *capture) result {
	procs := r.procs().newTask(n.ID)
	defer procs.end()
	cmd, sb, start, err := r.startTask(n, out, procs)
	if err != nil {
		res := result{exitCode: -1, startErr: err}
		if !start.IsZero() {
			res.duration = time.Since(start)
		}
		return res
	}
	procs.started(cmd.Process.Pid)
	var res result
	var waitErr error
	res.timedOut, res.interrupted, waitErr = waitTask(ctx, n, cmd, sb, procs)
	res.duration = time.Since(start)
	res.violations = sb.finish(r.p.Masker.String)
	measure(&res, cmd.ProcessState, procs)
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) && res.exitCode == 0 {
		res.exitCode = -1
		res.startErr = waitErr
	}
	out.flush()
	return res
}

// startTask starts the node's command, confined, writing to out, in a
// cgroup of its own when the kernel allows (else again without).
// start is when it started (zero when it was not confined).
func (r *run) startTask(n *workspace.Node, out *capture, procs *taskProcs) (cmd *exec.Cmd, sb *confinement, start time.Time, err error) {
	dir := r.dir(n)
	shell := scriptShell(r.p.Env, dir, r.p.Model.Root)
	if err := shellRefusal(shell, dir); err != nil {
		return nil, nil, time.Time{}, err
	}
	command := func() *exec.Cmd {
		cmd := shellCommand(n.Def.Command, shell, r.p.Env)
		cmd.Dir = dir
		cmd.Env = r.taskEnv(n, dir)
		cmd.Stdin = nil
		cmd.Stdout = out
		cmd.Stderr = out
		// Its own group (so a timeout kills every process of it), and
		// killed if vx itself dies without getting to clean up.
		procs.attach(cmd.SysProcAttr)
		// Grandchildren that keep the pipes open must not hold up the run.
		cmd.WaitDelay = 2 * time.Second
		return cmd
	}
	cmd = command()
	if sb, err = r.confine(n, cmd, dir); err != nil {
		return nil, nil, time.Time{}, err
	}
	start = time.Now()
	err = sb.start(cmd)
	if err != nil && procs.startFailed() {
		// The kernel would not start it in a cgroup of its own.
		cmd = command()
		if sb, err = r.confine(n, cmd, dir); err != nil {
			return nil, nil, time.Time{}, err
		}
		start = time.Now()
		err = sb.start(cmd)
	}
	return cmd, sb, start, err
}

// waitTask waits for the started command until it ends, its timeout
// passes or ctx is cancelled (then its group is killed), and kills what
// is left of its group in any case. What the first process left running
// is killed as soon as it exits (procs.killLeft), not once its output
// pipes close: a process holding them would otherwise run on for the
// WaitDelay.
func waitTask(ctx context.Context, n *workspace.Node, cmd *exec.Cmd, sb *confinement, procs *taskProcs) (timedOut, interrupted bool, err error) {
	pgid := cmd.Process.Pid
	var timeout <-chan time.Time
	if n.Def.Timeout > 0 {
		t := time.NewTimer(n.Def.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	done := make(chan error, 1)
	go func() { done <- sb.wait(cmd) }()
	select {
	case err = <-done:
	case <-leaderExited(pgid):
		// Killed while the leader, not yet reaped, holds the group's
		// number: no later signal to a number another group may take.
		procs.killLeft()
		return false, false, <-done
	case <-timeout:
		timedOut = true
		killGroup(pgid)
		err = <-done
	case <-ctx.Done():
		interrupted = true
		killGroup(pgid)
		err = <-done
	}
	// Whatever the leader did, no process of the group outlives the task.
	signalGroup(pgid, syscall.SIGKILL)
	return timedOut, interrupted, err
}

// measure reads the ended command's exit code (128+N when signal N
// killed it), its peak memory and how many CPUs it kept busy.
func measure(res *result, ps *os.ProcessState, procs *taskProcs) {
	if ps == nil {
		return
	}
	res.exitCode = ps.ExitCode()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.exitCode = 128 + int(ws.Signal())
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		res.peakRSS = procs.peak(ru)
		cpu := cpuTime(ru)
		if res.duration > 0 {
			res.cpuParallelism = float64(cpu) / float64(res.duration)
		}
	}
}

func (r *run) dir(n *workspace.Node) string {
	if n.Project == workspace.RootProject {
		return r.p.Model.Root
	}
	return filepath.Join(r.p.Model.Root, filepath.FromSlash(n.Dir))
}

var _ io.Writer = (*capture)(nil)
