package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vzn/vx/internal/procmark"
)

// The watchdog is vx's own binary started again, in a session of its own,
// with the read end of a pipe as its stdin. vx tells it, a line each, the
// run's cgroup and workspace, and each task's process group and id as it
// starts and ends. The pipe closes when vx exits, however it exits (the
// kernel closes a killed process's descriptors): the watchdog then kills
// the groups of the tasks that were still running, the run's cgroup, and
// the processes marked as those tasks' that it can find (procmark.Find),
// and exits. Only SIGKILL stops it early: it ignores the signals a
// terminal or a process group gets, so that the Ctrl-C or kill that stops
// vx does not stop it.

// watchdogArg and watchdogEnv mark a process started as the watchdog.
const (
	watchdogArg = "vx-watchdog"
	watchdogEnv = "VX_WATCHDOG"
)

// What vx tells the watchdog: "cgroup DIR", "root DIR" (the workspace),
// "task PGID ID" (a task started; ID quoted as Go does), "done PGID" (it
// ended, its processes are gone).
const (
	verbCgroup = "cgroup"
	verbRoot   = "root"
	verbTask   = "task"
	verbDone   = "done"
)

// init turns the process into the watchdog when vx started it so: any
// binary holding the runner (vx, a test of it) can be started as one.
func init() {
	if len(os.Args) == 2 && os.Args[1] == watchdogArg && os.Getenv(watchdogEnv) == "1" {
		os.Exit(watchdogMain(os.Stdin))
	}
}

// watchdog is vx's end of the pipe to its watchdog; a nil one does nothing.
type watchdog struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	w   *os.File
}

// startWatchdog starts the watchdog, told of the run's cgroup (if any)
// and workspace root.
func startWatchdog(cgroup, root string) (*watchdog, error) {
	exe, err := selfExe()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:  exe,
		Args:  []string{"vx", watchdogArg},
		Env:   []string{watchdogEnv + "=1"},
		Dir:   "/",
		Stdin: r, // stdout and stderr: /dev/null, so it holds no pipe of vx's
		// Out of vx's session and group, so that a terminal's hangup or
		// a signal to vx's group does not reach it.
		SysProcAttr: ownSession(),
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	d := &watchdog{cmd: cmd, w: w}
	if cgroup != "" {
		d.sendLine(verbCgroup + " " + cgroup)
	}
	d.sendLine(verbRoot + " " + root)
	return d, nil
}

// started tells the watchdog of a task's group.
func (d *watchdog) started(pgid int, id string) {
	if d != nil {
		d.sendLine(verbTask + " " + strconv.Itoa(pgid) + " " + strconv.Quote(id))
	}
}

// ended tells the watchdog the group is gone.
func (d *watchdog) ended(pgid int) {
	if d != nil {
		d.sendLine(verbDone + " " + strconv.Itoa(pgid))
	}
}

// sendLine writes one line (shorter than PIPE_BUF, as task ids and paths
// are: written whole). A
// watchdog that is gone makes it fail with EPIPE, which is all it can do.
func (d *watchdog) sendLine(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w != nil {
		_, _ = d.w.WriteString(line + "\n")
	}
}

// stop closes the pipe: the watchdog, with no task left to kill, exits.
// vx does not wait for it (it is reaped in the background: a vx about to
// exit does not pay for its start-up).
func (d *watchdog) stop() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.w.Close()
	d.w = nil
	d.mu.Unlock()
	go d.cmd.Wait()
}

// watchdogMain reads what vx tells it until the pipe closes, then kills
// what is left and exits 0.
func watchdogMain(in io.Reader) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	watch(in)
	return 0
}

// watch reads what vx tells until in ends, then kills what is left.
func watch(in io.Reader) {
	var cgroup, root string
	tasks := map[int]string{} // running tasks: group -> id
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		verb, arg, _ := strings.Cut(sc.Text(), " ")
		switch verb {
		case verbCgroup:
			if isRunCgroup(arg) {
				cgroup = arg
			}
		case verbRoot:
			root = arg
		case verbTask:
			g, quoted, _ := strings.Cut(arg, " ")
			pgid, err := strconv.Atoi(g)
			id, qerr := strconv.Unquote(quoted)
			if err == nil && qerr == nil && pgid > 1 {
				tasks[pgid] = id
			}
		case verbDone:
			if pgid, err := strconv.Atoi(arg); err == nil {
				delete(tasks, pgid)
			}
		}
	}
	if sc.Err() != nil {
		// A line past the bound: what follows is lost, but vx lives on
		// until the pipe ends; only then is anything killed.
		_, _ = io.Copy(io.Discard, in)
	}
	ids := map[string]bool{}
	for pgid, id := range tasks {
		signalGroup(pgid, syscall.SIGKILL)
		ids[id] = true
	}
	if cgroup != "" {
		removeCgroup(cgroup)
	}
	if len(ids) > 0 && root != "" {
		procmark.Kill(procmark.Mark{Root: root, Var: taskIDEnv, IDs: ids}, time.Time{})
	}
}
