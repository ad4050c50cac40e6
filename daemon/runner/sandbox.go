package runner

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/vzn/vx/daemon/sandbox"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// sandboxState is a run's sandbox runtime: the host's verdict, taken once.
type sandboxState struct {
	once    sync.Once
	verdict sandbox.Verdict
	// hostWarned: a host with no sandbox at all is said once a run.
	hostWarned sync.Once
	// Temp dirs: one per task executing at a time, kept for the run and
	// emptied between tasks (creating a directory per task cost more than
	// confining it). Named by pid so two vx runs never share one.
	tmpMu   sync.Mutex
	tmpFree []string
	tmpAll  []string
}

// takeTmp gives an executing task a temp dir of its own.
func (r *run) takeTmp() (string, error) {
	r.sb.tmpMu.Lock()
	defer r.sb.tmpMu.Unlock()
	if n := len(r.sb.tmpFree); n > 0 {
		dir := r.sb.tmpFree[n-1]
		r.sb.tmpFree = r.sb.tmpFree[:n-1]
		return dir, nil
	}
	dir := filepath.Join(VXDir(r.p.Model.Root), "tmp", fmt.Sprintf("%d-%d", os.Getpid(), len(r.sb.tmpAll)))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the sandbox temp dir: %w", err)
	}
	r.sb.tmpAll = append(r.sb.tmpAll, dir)
	return dir, nil
}

// giveTmp empties a temp dir and makes it free for the next task. One that
// is no longer a directory of its own (a report-mode task may remove it and
// put a symlink in its place: writes to its own temp dir are allowed) is
// removed, never followed, and not reused.
func (r *run) giveTmp(dir string) {
	if !emptyDir(dir) {
		os.Remove(dir)
		return
	}
	r.sb.tmpMu.Lock()
	r.sb.tmpFree = append(r.sb.tmpFree, dir)
	r.sb.tmpMu.Unlock()
}

// removeTmp removes the run's temp dirs.
func (r *run) removeTmp() {
	r.sb.tmpMu.Lock()
	defer r.sb.tmpMu.Unlock()
	for _, dir := range r.sb.tmpAll {
		os.RemoveAll(dir)
	}
	r.sb.tmpAll, r.sb.tmpFree = nil, nil
}

func (r *run) sandboxVerdict() sandbox.Verdict {
	r.sb.once.Do(func() { r.sb.verdict = sandbox.Detect() })
	return r.sb.verdict
}

// confinement is one sandboxed execution; nil for a task without a
// sandbox (start and wait are then cmd's own).
type confinement struct {
	run     *run
	policy  *sandbox.Policy
	session *sandbox.Session
	tmp     string
}

// sandboxRequired refuses, before anything runs, a run holding a task
// whose sandbox is required where this host cannot apply it.
func sandboxRequired(p *Prepared) error {
	var v *sandbox.Verdict
	var refused []string
	for _, n := range p.Graph.Executable() {
		sb := n.Def.Sandbox
		if sb == nil || !sb.Required {
			continue
		}
		if v == nil {
			d := sandbox.Detect()
			v = &d
		}
		if sandbox.Decide(*v, sb.Mode, true).Refuse {
			refused = append(refused, n.ID)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	sort.Strings(refused)
	return fmt.Errorf("%s declare%s a required sandbox, which this host cannot apply: %s; nothing was run (drop \"required\" to run unconfined with a warning)",
		strings.Join(refused, ", "), map[bool]string{true: "s", false: ""}[len(refused) == 1], v.Reason)
}

// confine prepares the sandbox of a node that declares one: writes beneath
// its outputs, its write globs and its own temp dir (TMPDIR), TCP as declared.
func (r *run) confine(n *workspace.Node, cmd *exec.Cmd, dir string) (*confinement, error) {
	sb := n.Def.Sandbox
	if sb == nil {
		return nil, nil
	}
	v := r.sandboxVerdict()
	d := sandbox.Decide(v, sb.Mode, false)
	switch {
	case d.HostWide:
		r.sb.hostWarned.Do(func() { r.warn("%s", d.Warning) })
	case d.Warning != "":
		r.warn("%s: %s", n.ID, d.Warning)
	}
	if !d.Landlock && !d.Observe {
		return nil, nil
	}
	tmp, err := r.takeTmp()
	if err != nil {
		return nil, err
	}
	globs := append(append([]string{}, n.Def.Outputs...), sb.Write...)
	dirs, files := sandbox.WriteRoots(dir, globs, tmp)
	p := &sandbox.Policy{Landlock: d.Landlock, Observe: d.Observe, Network: sb.Network, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	return &confinement{run: r, policy: p, tmp: tmp}, nil
}

// start starts cmd, confined when c is not nil.
func (c *confinement) start(cmd *exec.Cmd) error {
	if c == nil {
		return cmd.Start()
	}
	s, err := sandbox.Start(cmd, c.policy)
	if err != nil {
		c.run.giveTmp(c.tmp)
		return err
	}
	c.session = s
	return nil
}

// wait waits for cmd.
func (c *confinement) wait(cmd *exec.Cmd) error {
	if c == nil {
		return cmd.Wait()
	}
	return c.session.Wait()
}

// finish returns the execution's violations, masked, and empties its temp dir.
func (c *confinement) finish(mask func(string) string) []wire.SandboxViolation {
	if c == nil || c.session == nil {
		return nil
	}
	vs := c.session.Finish()
	c.run.giveTmp(c.tmp)
	for i := range vs {
		vs[i].Path, vs[i].Address, vs[i].Process = mask(vs[i].Path), mask(vs[i].Address), mask(vs[i].Process)
	}
	return vs
}

// reportMode says whether the task declares a report-mode sandbox.
func reportMode(n *workspace.Node) bool {
	return n.Def.Sandbox != nil && n.Def.Sandbox.Mode == wire.SandboxReport
}

// sandboxFooter prints each enforced task's violations under the run's
// footer, and one line for the report-mode tasks that made any: report
// mode is for learning, and vx last --violations lists them.
func (r *run) sandboxFooter(s *wire.RunSummary) {
	report := map[string]bool{}
	if r.p != nil && r.p.Graph != nil && anyViolations(s.Tasks) { // a repeat (Repeat) loads no graph; its rows ran nothing
		for _, n := range r.p.Graph.Nodes {
			report[n.ID] = reportMode(n)
		}
	}
	reported := 0
	for _, row := range s.Tasks {
		if len(row.SandboxViolations) == 0 {
			continue
		}
		if report[row.TaskID] {
			reported++
			continue
		}
		r.printf(" Sandbox: %s: %d violation%s\n", row.TaskID, len(row.SandboxViolations), plural(len(row.SandboxViolations)))
		for _, v := range row.SandboxViolations {
			r.printf("   %s\n", v)
		}
		if len(row.SandboxViolations) >= sandbox.MaxViolations {
			r.printf("   (only the first %d distinct violations are kept)\n", sandbox.MaxViolations)
		}
	}
	if reported > 0 {
		r.printf(" Sandbox (report): %d task%s wrote or connected outside %s declaration; vx last --violations shows them\n",
			reported, plural(reported), map[bool]string{true: "its", false: "their"}[reported == 1])
	}
}

// anyViolations says whether a task of rows made a sandbox violation
// (none in a fully cached run, which then looks up no node).
func anyViolations(rows []wire.TaskRow) bool {
	for i := range rows {
		if len(rows[i].SandboxViolations) > 0 {
			return true
		}
	}
	return false
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// emptyDir removes what a task left in its temp dir, through an os.Root so
// that nothing outside it is touched. false: dir is no directory of its own
// (missing, or a symlink), and nothing was removed. Most tasks leave it
// empty, which one read of the directory tells.
func emptyDir(dir string) bool {
	d, err := openDirNoFollow(dir)
	if err != nil {
		return false // missing, a symlink or no directory
	}
	defer d.Close()
	if names, err := d.Readdirnames(1); err == io.EOF || (err == nil && len(names) == 0) {
		return true
	}
	fi, err := d.Stat()
	if err != nil {
		return false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	if st, err := root.Stat("."); err != nil || !os.SameFile(fi, st) {
		return false // replaced since it was opened
	}
	entries, _ := fs.ReadDir(root.FS(), ".")
	for _, e := range entries {
		root.RemoveAll(e.Name())
	}
	return true
}
