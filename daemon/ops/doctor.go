package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/protocol/wire"
)

// DoctorInput is what vx doctor and the diagnose tool know beyond the Env.
type DoctorInput struct {
	// Version is this vx's version; the daemon must be the same.
	Version string `json:"-"`
	// VX is this vx executable (for the MCP client configuration).
	VX string `json:"-"`
	// Launcher is the Node launcher of the npm package that started this
	// vx (NPMLauncherEnv), "" when none did.
	Launcher string `json:"-"`
	// Self is set inside vxd: the daemon's own status.
	Self func() *wire.Status `json:"-"`
	// Probe is set by vx doctor: the workspace's daemon's status, or an
	// error when none answers (notRunning true when that is all it is).
	Probe func(ctx context.Context) (st *wire.Status, notRunning bool, err error) `json:"-"`
}

// Doctor check outcomes.
const (
	CheckOK      = "ok"
	CheckProblem = "problem"
	CheckSkipped = "skipped"
)

// DoctorCheck is one thing vx needs here, and how it stands.
type DoctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, problem or skipped
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // what to do, for a problem
}

// DoctorOutput is what stops vx working in a workspace.
type DoctorOutput struct {
	OK     bool          `json:"ok"` // no check found a problem
	Root   string        `json:"root"`
	Checks []DoctorCheck `json:"checks"`
	// MCPConfig is the .mcp.json an MCP client needs to reach vx here.
	MCPConfig string `json:"mcpConfig"`
}

// Doctor checks, in order: git and the repository, that .vx/ is writable,
// the run history's integrity, the configuration, its plugins, vx.lock,
// the daemon, the remote cache and the platform (each when configured:
// reachable and the token accepted), how vx was installed, and vx on PATH
// for MCP clients. It changes nothing.
func Doctor(ctx context.Context, e *Env, in DoctorInput) (*DoctorOutput, error) {
	out := &DoctorOutput{Root: e.Root}
	add := func(c DoctorCheck) {
		c.Detail, c.Fix = e.Masker.String(c.Detail), e.Masker.String(c.Fix)
		out.Checks = append(out.Checks, c)
	}
	add(checkGit(ctx, e.Root))
	add(checkWritable(e.Root))
	add(checkHistory(ctx, e))
	cfg := checkConfig(e)
	add(cfg)
	add(checkPlugins(e, cfg.Status == CheckOK))
	add(checkLock(e, cfg.Status == CheckOK))
	daemon, st := checkDaemon(ctx, in)
	add(daemon)
	add(checkJournal(st))
	add(checkRemoteCache(ctx, e))
	add(checkPlatform(ctx, e))
	add(checkInstall(in.VX, in.Launcher))
	shim, snippet := checkShim(in.VX, in.Launcher)
	add(shim)
	out.MCPConfig = snippet
	out.OK = true
	for _, c := range out.Checks {
		if c.Status == CheckProblem {
			out.OK = false
		}
	}
	return out, nil
}

func checkGit(ctx context.Context, root string) DoctorCheck {
	c := DoctorCheck{Name: "git"}
	git, err := exec.LookPath("git")
	if err != nil {
		c.Status, c.Detail = CheckProblem, "git is not on PATH"
		c.Fix = "install git: vx hashes the files git does not ignore, and --affected compares against a git ref"
		return c
	}
	cmd := exec.CommandContext(ctx, git, "rev-parse", "--show-toplevel")
	cmd.Dir = root
	top, err := cmd.Output()
	if err != nil {
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s is not inside a git repository", root)
		c.Fix = "git init && git add -A && git commit -m init (in the workspace root)"
		return c
	}
	c.Status, c.Detail = CheckOK, fmt.Sprintf("%s, repository %s", git, strings.TrimSpace(string(top)))
	return c
}

func checkWritable(root string) DoctorCheck {
	c := DoctorCheck{Name: ".vx writable"}
	dir := filepath.Join(root, ".vx")
	target := dir
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		target = root // vx creates .vx/ on the first run
	}
	if err := writable(target); err != nil {
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s is not writable by this user: %v", target, err)
		c.Fix = fmt.Sprintf("make it yours and writable: chown -R $(id -u) %s && chmod -R u+rwX %s", target, target)
		return c
	}
	c.Status, c.Detail = CheckOK, target+" is writable"
	return c
}

func checkHistory(ctx context.Context, e *Env) DoctorCheck {
	c := DoctorCheck{Name: "history"}
	path := history.Path(e.Root)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		c.Status, c.Detail = CheckOK, "no run history yet (the first vx run starts it)"
		return c
	}
	fix := fmt.Sprintf("move it aside (mv %s %s.bad); the next vx run starts a new history", path, path)
	h, err := e.History(ctx)
	if err != nil {
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), fix
		return c
	}
	problems, err := h.Integrity(ctx)
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), fix
	case len(problems) > 0:
		c.Status, c.Detail, c.Fix = CheckProblem, fmt.Sprintf("%s fails its integrity check: %s", path, strings.Join(problems, "; ")), fix
	default:
		c.Status, c.Detail = CheckOK, path+" passes its integrity check"
	}
	return c
}

func checkConfig(e *Env) DoctorCheck {
	c := DoctorCheck{Name: "config"}
	if err := e.LoadError(); err != nil {
		c.Status, c.Detail = CheckProblem, err.Error()
		c.Fix = "correct the file and place named; vx show loads it again and says what is still wrong"
		return c
	}
	m, err := e.CurrentModel()
	if err != nil {
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), "vx show says what fails to load"
		return c
	}
	c.Status, c.Detail = CheckOK, fmt.Sprintf("%d projects, %d task names", len(m.Projects), len(m.TaskNames()))
	return c
}

// checkPlugins is a problem when a declared plugin failed
// (PluginWarnings); skipped when none is declared.
func checkPlugins(e *Env, configOK bool) DoctorCheck {
	c := DoctorCheck{Name: "plugins"}
	m, err := e.CurrentModel()
	switch {
	case !configOK || err != nil:
		c.Status, c.Detail = CheckSkipped, "the configuration does not load"
		return c
	case len(m.Plugins()) == 0:
		c.Status, c.Detail = CheckSkipped, "no plugins declared"
		return c
	}
	if warns := m.PluginWarnings(); len(warns) > 0 {
		c.Status, c.Detail = CheckProblem, strings.Join(warns, "; ")
		c.Fix = "vx info shows each plugin's whole error; correct the plugin, or its declaration in vx.workspace.json"
		return c
	}
	names := make([]string, 0, len(m.Plugins()))
	for _, p := range m.Plugins() {
		names = append(names, p.Name)
	}
	c.Status, c.Detail = CheckOK, fmt.Sprintf("%d loaded: %s", len(names), strings.Join(names, ", "))
	return c
}

func checkLock(e *Env, configOK bool) DoctorCheck {
	c := DoctorCheck{Name: "lock"}
	if !configOK {
		c.Status, c.Detail = CheckSkipped, "the configuration does not load"
		return c
	}
	m, err := e.CurrentModel()
	if err != nil {
		c.Status, c.Detail = CheckSkipped, err.Error()
		return c
	}
	res, err := lockfile.Check(m, e.Masker)
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), "vx lock writes a fresh vx.lock"
	case !res.Present:
		c.Status, c.Detail = CheckOK, "no vx.lock (optional: vx lock records what each task runs, for review)"
	case !res.UpToDate:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("vx.lock is out of date: %d difference(s) from the configuration", len(res.Problems))
		c.Fix = "review them with vx lock --check, then record the configuration with vx lock"
	default:
		c.Status, c.Detail = CheckOK, fmt.Sprintf("vx.lock is current (%d tasks)", len(res.Audited))
	}
	return c
}

func checkDaemon(ctx context.Context, in DoctorInput) (DoctorCheck, *wire.Status) {
	c := DoctorCheck{Name: "daemon"}
	if in.Self != nil {
		st := in.Self()
		c.Status, c.Detail = CheckOK, fmt.Sprintf("this vxd %s, pid %d, port %d", st.Version, st.PID, st.Port)
		return c, st
	}
	if in.Probe == nil {
		c.Status, c.Detail = CheckSkipped, "not checked"
		return c, nil
	}
	st, notRunning, err := in.Probe(ctx)
	switch {
	case notRunning:
		c.Status, c.Detail = CheckOK, "not running (vx mcp starts it when an agent connects)"
	case err != nil:
		c.Status, c.Detail = CheckProblem, err.Error()
		c.Fix = "vxd stop, then let vx mcp (or vxd start) start a fresh one; .vx/daemon/vxd.log says what happened"
	case st.Version != in.Version:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("vxd %s runs (pid %d), this vx is %s", st.Version, st.PID, in.Version)
		c.Fix = "vxd stop; the next vx mcp starts the vxd beside this vx"
	default:
		c.Status, c.Detail = CheckOK, fmt.Sprintf("this vxd %s, pid %d, port %d", st.Version, st.PID, st.Port) // as diagnose says it (tests/parity)
	}
	if err != nil || notRunning {
		return c, nil
	}
	return c, st
}

// checkJournal says whether the daemon's change journal spares runs their
// stat walk: a stopped one (on macOS, where every watched file is an open
// descriptor, a tree too large for the open-file limit) is a problem until
// vxd restarts.
func checkJournal(st *wire.Status) DoctorCheck {
	c := DoctorCheck{Name: "change journal"}
	switch {
	case st == nil:
		c.Status, c.Detail = CheckSkipped, "no daemon runs: vx runs stat every file"
	case st.JournalStopped:
		c.Status, c.Detail = CheckProblem, st.Journal
		c.Fix = "vxd stop, and the next vxd starts a new journal; where the workspace has more files than the open-file limit lets vxd watch, raise the hard limit first (docs/platforms.md)"
	default:
		c.Status, c.Detail = CheckOK, st.Journal
	}
	return c
}

// checkShim finds vx on PATH, where an MCP client's {"command": "vx"}
// looks for it, and writes the client configuration to use: for an npm
// install off PATH, npx from the workspace root.
func checkShim(self, launcher string) (DoctorCheck, string) {
	c := DoctorCheck{Name: "vx on PATH"}
	command, args := "vx", []string{"mcp"}
	found, err := exec.LookPath("vx")
	if err == nil && inNodeModulesBin(found) {
		// npx or a package.json script put the workspace's
		// node_modules/.bin on PATH; an MCP client does not.
		err = exec.ErrNotFound
	}
	switch {
	case err != nil && installKind(self, launcher) != installStandalone:
		command, args = npmMCPConfig()
		c.Status, c.Detail = CheckOK, "vx is not on PATH; this npm install is reached with npx from the workspace root (configuration below)"
	case err != nil:
		c.Status, c.Detail = CheckProblem, "vx is not on PATH: an MCP client configured with command \"vx\" cannot start it"
		c.Fix = "put the directory of vx on PATH, or use the configuration below with the absolute path"
		if self != "" {
			command = self
		}
	case self != "" && !sameFile(found, self):
		c.Status, c.Detail = CheckOK, fmt.Sprintf("%s (a different executable from %s)", found, self)
	default:
		c.Status, c.Detail = CheckOK, found
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"vx": map[string]any{"command": command, "args": args}}}, "", "  ")
	return c, string(b)
}

// inNodeModulesBin reports whether path is in a node_modules/.bin
// directory, which is on PATH only under npx and package.json scripts.
func inNodeModulesBin(path string) bool {
	dir := filepath.Dir(path)
	return filepath.Base(dir) == ".bin" && filepath.Base(filepath.Dir(dir)) == "node_modules"
}

func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}
