package ops

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// eventsFDEnv names the file descriptor on which a child `vx run` writes
// its events as JSON lines, for the daemon's progress and live feed.
const eventsFDEnv = "VX_EVENTS_FD"

// lifelineFDEnv names the file descriptor a child `vx run` reads until
// vxd, which holds the pipe's only write end, dies (newLifeline).
const lifelineFDEnv = "VX_LIFELINE_FD"

// PlanTasksInput is planTasks' input and runTasks' selection, as an agent
// gives it (a filter may be one string, affected a ref); selection turns
// it into the wire.Selection vx run runs.
type PlanTasksInput struct {
	Tasks    Tasks    `json:"tasks,omitempty" jsonschema:"task names or project#task ids"`
	All      bool     `json:"all,omitempty" jsonschema:"every task (runTasks: every task an agent may run)"`
	Filters  Filter   `json:"filter,omitempty" jsonschema:"projects to include, as vx run --filter: a name or glob, tag:NAME, or ./path/glob, with web... / ...web / !SEL as in turbo (a string or an array)"`
	Affected Affected `json:"affected,omitzero" jsonschema:"true: only projects changed against the default branch's merge base, plus dependents; or a git ref to compare against"`
}

// RunTasksInput is runTasks' input: planTasks' selection, and force (a
// plan predicts the cache; it does not skip it).
type RunTasksInput struct {
	PlanTasksInput
	Force bool   `json:"force,omitempty" jsonschema:"ignore cache hits"`
	VX    string `json:"-"` // the vx executable ("": the Env's)
}

// selection is the input as the run's selection of tasks (taskArgs'
// checked list, all: true spelled out).
func (in RunTasksInput) selection(tasks []string) wire.Selection {
	sel := projectSelection(in.Filters, in.Affected)
	sel.Tasks, sel.Force = tasks, in.Force
	return sel
}

// projectSelection is an agent's filter and affected as the selection of
// projects.
func projectSelection(f Filter, a Affected) wire.Selection {
	return wire.Selection{Filters: f, Affected: a.On, AffectedRef: a.Ref}
}

// RunTasksOutput is the child's exit code and its summary.
type RunTasksOutput struct {
	ExitCode int              `json:"exitCode"`
	Summary  *wire.RunSummary `json:"summary"`
	// PlanID names the plan this run applied (runTasks {planId}).
	PlanID string `json:"planId,omitempty"`
}

// PlanTasksOutput is the child's exit code and its plan. In vxd the plan
// is also kept, under PlanID until ExpiresAt, with the prerequisites
// runTasks {planId} re-checks before it runs exactly this plan.
type PlanTasksOutput struct {
	ExitCode      int                     `json:"exitCode"`
	Plan          *wire.Plan              `json:"plan"`
	PlanID        string                  `json:"planId,omitempty"`
	ExpiresAt     *time.Time              `json:"expiresAt,omitempty"`
	Prerequisites *wire.PlanPrerequisites `json:"prerequisites,omitempty"`
	// ApproveWith, under mcp.confirm, says where a person approves the
	// plan before runTasks {planId} runs it.
	ApproveWith string `json:"approveWith,omitempty"`
}

// taskArgs checks the selection and renders it as the equivalent command
// line, `run FLAGS... EXTRA... -- TASKS...`, which the child records as the
// run's command and the run slot names. The child itself is handed the
// typed RunRequest (childRequest), never these words; even so every
// agent string here is a flag's `=value` or follows the `--`, and entries
// starting with "-" were refused before (Tasks.Check, which every way in
// runs). allowed (nil: any) is the workspace's mcp.run allow-list.
func taskArgs(e *Env, in RunTasksInput, allowed func(string) bool, extra ...string) ([]string, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	tasks := in.Tasks
	switch {
	case in.All && len(tasks) > 0:
		return nil, opkit.Refuse("all", "give either tasks or all: true, not both")
	case in.All:
		for _, t := range m.TaskNames() {
			if allowed == nil || allowed(t) {
				tasks = append(tasks, t)
			}
		}
		if len(tasks) == 0 {
			return nil, opkit.Refuse("all", "this workspace has no task an agent may run")
		}
	case len(tasks) == 0:
		return nil, opkit.Refuse("tasks", "name at least one task (or all: true); tasks here: %s", strings.Join(m.TaskNames(), ", "))
	}
	if allowed != nil && !in.All {
		for _, t := range tasks {
			name := t
			if i := strings.LastIndexByte(t, '#'); i >= 0 {
				name = t[i+1:]
			}
			if !allowed(name) {
				return nil, opkit.Refuse("tasks", "%q may not be run by an agent in this workspace (mcp.run in vx.workspace.json allows only its listed tasks)", t)
			}
		}
	}
	args := []string{"run"}
	for _, f := range in.Filters {
		args = append(args, "--filter="+f)
	}
	if in.Affected.On {
		if in.Affected.Ref != "" {
			args = append(args, "--affected="+in.Affected.Ref)
		} else {
			args = append(args, "--affected")
		}
	}
	if in.Force {
		args = append(args, "--force")
	}
	args = append(args, extra...)
	args = append(args, "--")
	return append(args, tasks...), nil
}

// RunTasks runs the selection in a child `vx run --input -` in the
// workspace (nothing a task does may take vxd down), handing it the typed
// request on stdin and reading the typed summary from its stdout, reporting each event through onEvent. Cancelling ctx
// interrupts the child (SIGINT), which records the run as interrupted;
// so does vxd's death (its lifeline). One runs at a time per workspace: a
// second is refused with a *BusyError naming the first.
func RunTasks(ctx context.Context, e *Env, in RunTasksInput, allowed func(string) bool, onEvent func(wire.Event)) (*RunTasksOutput, error) {
	args, err := taskArgs(e, in, allowed, "--format=json")
	if err != nil {
		return nil, err
	}
	release, err := takeRunSlot(e.Root, args)
	if err != nil {
		return nil, err
	}
	defer release()
	code, stdout, stderr, err := e.runChild(ctx, e.vx(in.VX), childRequest(in, args), onEvent)
	if err != nil {
		return nil, err
	}
	var sum wire.RunSummary
	if len(bytes.TrimSpace(stdout)) == 0 || json.Unmarshal(stdout, &sum) != nil {
		return nil, &opkit.Refusal{Msg: e.Masker.String(lastLines(stderr, code))}
	}
	return &RunTasksOutput{ExitCode: code, Summary: &sum}, nil
}

// PlanTasks plans the selection in this process: planning is read-only
// (nothing executes, no run is recorded), so unlike RunTasks it needs no
// child. It reads the configuration on disk now, as vx run --dry does,
// with this process's environment (what a child would inherit).
func PlanTasks(ctx context.Context, e *Env, in RunTasksInput) (*PlanTasksOutput, error) {
	if in.Force {
		return nil, opkit.Refuse("force", "planTasks does not take force")
	}
	args, err := taskArgs(e, in, nil, "--dry=json")
	if err != nil {
		return nil, err
	}
	req := childRequest(in, args)
	environ := os.Environ()
	refuse := func(err error) error {
		return &opkit.Refusal{Msg: e.Masker.String(err.Error())}
	}
	m, err := workspace.Load(e.Root)
	if err != nil {
		e.Masker.Add(workspace.SecretValues(e.Root, nil, e.Environ)...)
		return nil, refuse(err)
	}
	e.Masker.Add(workspace.SecretValues(m.Root, m, e.Environ)...)
	conc, err := EnvConcurrency(os.Getenv("VX_CONCURRENCY"))
	if err != nil {
		return nil, refuse(err)
	}
	// The plan is of the model just loaded, not of the one e keeps.
	now := &Env{Root: e.Root, model: m, Environ: e.Environ, Masker: e.Masker}
	plan, err := Plan(ctx, now, ExecuteInput{Options: runner.Options{Selection: req.Selection, Concurrency: conc, Environ: environ, Logger: zerolog.Nop()}})
	if err != nil {
		return nil, err
	}
	return &PlanTasksOutput{ExitCode: 0, Plan: plan}, nil
}

// EnvConcurrency reads VX_CONCURRENCY as vx run does: unset is 0 (the
// configured workers), else a positive worker count.
func EnvConcurrency(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("VX_CONCURRENCY=%q is not a worker count (use a positive whole number, or unset it)", v)
	}
	return n, nil
}

func lastLines(stderr []byte, code int) string {
	s := strings.TrimSpace(string(stderr))
	lines := strings.Split(s, "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	s = strings.Join(lines, "\n")
	if s == "" {
		s = fmt.Sprintf("vx run exited with code %d and printed nothing", code)
	}
	return s
}

// childRequest is the typed request a child vx run reads on its stdin.
// args is taskArgs' command line for it: its tasks (what follows "--")
// are the checked selection, and the whole is recorded as the run's
// command, never parsed.
func childRequest(in RunTasksInput, args []string) wire.RunRequest {
	tasks := args[slices.Index(args, "--")+1:]
	return wire.RunRequest{Selection: in.selection(tasks), Command: args}
}

// runChild runs `vx run --input -` with req on its stdin.
func (e *Env) runChild(ctx context.Context, vx string, req wire.RunRequest, onEvent func(wire.Event)) (int, []byte, []byte, error) {
	if vx == "" {
		var err error
		if vx, err = os.Executable(); err != nil {
			return 0, nil, nil, err
		}
	}
	cmd := exec.Command(vx, "run", "--input=-")
	cmd.Dir = e.Root
	stdinF, err := requestFile(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer stdinF.Close()
	cmd.Stdin = stdinF
	// Files, not pipes: a child that outlives vxd must still be able to
	// print (a write to a broken pipe on stdout or stderr would kill it
	// before it records the run as interrupted).
	stdoutF, err := spoolFile()
	if err != nil {
		return 0, nil, nil, err
	}
	defer stdoutF.Close()
	stderrF, err := spoolFile()
	if err != nil {
		return 0, nil, nil, err
	}
	defer stderrF.Close()
	cmd.Stdout, cmd.Stderr = stdoutF, stderrF
	cmd.SysProcAttr = ownGroup()
	cmd.Env = os.Environ()
	feed, err := newEventFeed(cmd, onEvent)
	if err != nil {
		return 0, nil, nil, err
	}
	life, err := newLifeline(cmd)
	if err != nil {
		feed.close()
		return 0, nil, nil, err
	}
	defer life.close()
	if err := cmd.Start(); err != nil {
		feed.close()
		return 0, nil, nil, fmt.Errorf("starting %s: %w", vx, err)
	}
	life.started()
	feed.start()
	werr := waitChild(ctx, cmd)
	feed.finish()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return 0, nil, nil, werr
	}
	stdout, err := readSpool(stdoutF)
	if err != nil {
		return 0, nil, nil, err
	}
	stderr, err := readSpool(stderrF)
	if err != nil {
		return 0, nil, nil, err
	}
	return cmd.ProcessState.ExitCode(), stdout, stderr, nil
}

// waitChild waits for the child; cancelling ctx interrupts it (SIGINT
// to its process group, so it records the run as interrupted), and kills
// it when it has not ended 10 s later.
func waitChild(ctx context.Context, cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	signalGroup(cmd.Process.Pid, syscall.SIGINT)
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		signalGroup(cmd.Process.Pid, syscall.SIGKILL)
		return <-done
	}
}

// lifeline is a pipe whose read end a child `vx run` holds (as the
// descriptor lifelineFDEnv names) and whose write end only vxd holds:
// when vxd exits, however it exits, the kernel closes it, and the child,
// reading EOF, stops as on SIGTERM (it records the run as interrupted and
// stops its tasks). No parent-death signal is needed, which not every OS
// has.
type lifeline struct{ r, w *os.File }

// newLifeline gives cmd the read end.
func newLifeline(cmd *exec.Cmd) (*lifeline, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, lifelineFDEnv+"="+passFile(cmd, r))
	return &lifeline{r: r, w: w}, nil
}

// started drops vxd's copy of the read end, the child holding its own.
func (l *lifeline) started() { l.r.Close() }

// close ends the line, once the child has ended (or did not start).
func (l *lifeline) close() {
	l.r.Close()
	l.w.Close()
}

// eventFeed carries a child's events: JSON lines it writes on the pipe
// its eventsFDEnv names, each handed to onEvent. A nil feed (no onEvent)
// does nothing.
type eventFeed struct {
	r, w    *os.File
	onEvent func(wire.Event)
	done    chan struct{}
}

// newEventFeed gives cmd the pipe's write end as its fd 3 when onEvent is
// set.
func newEventFeed(cmd *exec.Cmd, onEvent func(wire.Event)) (*eventFeed, error) {
	if onEvent == nil {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, eventsFDEnv+"="+passFile(cmd, w))
	return &eventFeed{r: r, w: w, onEvent: onEvent, done: make(chan struct{})}, nil
}

// start reads the events once the child has started (and holds its own
// copy of the write end).
func (f *eventFeed) start() {
	if f == nil {
		return
	}
	f.w.Close()
	go func() {
		defer close(f.done)
		defer f.r.Close()
		sc := bufio.NewScanner(f.r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var ev wire.Event
			if ev.DecodeLine(sc.Bytes()) == nil {
				f.onEvent(ev)
			}
		}
	}()
}

// finish waits for the last events after the child ended; something the
// child left behind that still holds the pipe gets 2 s, then the reading
// stops.
func (f *eventFeed) finish() {
	if f == nil {
		return
	}
	select {
	case <-f.done:
	case <-time.After(2 * time.Second):
		f.r.Close()
		<-f.done
	}
}

// close releases the pipe of a child that did not start.
func (f *eventFeed) close() {
	if f != nil {
		f.r.Close()
		f.w.Close()
	}
}

// requestFile is an unnamed temporary file holding req, read from its start.
func requestFile(req wire.RunRequest) (*os.File, error) {
	f, err := spoolFile()
	if err != nil {
		return nil, err
	}
	if err := json.NewEncoder(f).Encode(req); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing vx run's request: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// spoolFile is an unnamed temporary file for a child's output.
func spoolFile() (*os.File, error) {
	f, err := os.CreateTemp("", "vx-run-output-*")
	if err != nil {
		return nil, fmt.Errorf("creating a file for vx run's output: %w", err)
	}
	_ = os.Remove(f.Name())
	return f, nil
}

// maxSpool bounds what is read back of a child's stdout or stderr.
const maxSpool = 64 << 20

func readSpool(f *os.File) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSpool))
	if err != nil {
		return nil, fmt.Errorf("reading vx run's output: %w", err)
	}
	return b, nil
}
