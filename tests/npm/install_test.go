//go:build !windows

package npm_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// manager is one package manager: how it adds @vzn/vx to a workspace, and
// whether the install script runs there (npm and yarn run it; pnpm and bun
// block scripts of packages nobody trusted, and pnpm's node_modules/.bin
// would run a native binary through node anyway).
type manager struct {
	name   string
	add    []string
	native bool
	// allow, when set, is what vx doctor's fix says runs the install
	// script afterwards: after it the binary is native.
	allow []string
}

var managers = []manager{
	{"npm", []string{"npm", "install", "--save-dev"}, true, nil},
	{"npm --ignore-scripts", []string{"npm", "install", "--save-dev", "--ignore-scripts"}, false, []string{"npm", "rebuild", "@vzn/vx"}},
	{"pnpm", []string{"pnpm", "add", "--save-dev"}, false, nil},
	{"yarn", []string{"yarn", "add", "--dev", "--non-interactive"}, true, nil},
	{"bun", []string{"bun", "add", "--dev"}, false, []string{"bun", "pm", "trust", "@vzn/vx"}},
}

// TestInstallFromRegistry: @vzn/vx published to a real registry installs
// with npm, pnpm, yarn and bun into a fresh workspace, where
// node_modules/.bin/vx is the native binary (install script ran) or the
// Node launcher (it did not), names this version, commit and platform,
// runs a workspace cold and then from the cache, vx doctor says which kind
// of install it is and gives the npx MCP configuration, and `npx --no vx
// mcp` starts the vxd of the package (beside the real vx) and answers
// initialize and tools/list. Where the script was blocked (npm
// --ignore-scripts, bun), the command vx doctor gives to allow it makes
// node_modules/.bin/vx the native binary.
func TestInstallFromRegistry(t *testing.T) {
	bin := tools(t)
	tgz := pack(t)
	home := t.TempDir()
	e := env(t, home, bin)
	reg := startRegistry(t, bin)
	harness.WriteFile(t, filepath.Join(home, ".npmrc"), reg.npmrc())
	publish(t, home, e, tgz)
	for _, m := range managers {
		t.Run(m.name, func(t *testing.T) {
			prog := m.add[0]
			if prog != "npm" { // npm is the one on PATH; the others are tests/npmregistry/node's
				prog = filepath.Join(bin, m.add[0])
				if _, err := os.Stat(prog); err != nil {
					reach.Missing(t, m.name+" is not installed: run npm ci in tests/npmregistry/node")
				}
				// bun's npm package takes its binary from an optional
				// platform package, else its install script downloads it
				// from GitHub: without either there is no bun to run.
				if r := harness.Run(t, home, e, prog, "--version"); r.Code != 0 {
					reach.Missing(t, m.name+" from tests/npmregistry/node does not run here\n"+r.String())
				}
			}
			root := reach.Workspace(t, map[string]string{
				"package.json": `{"name": "vx-npm-test", "private": true}`,
				".npmrc":       reg.npmrc(),
				// a slow task, for the launcher's signal check.
				"vx.workspace.json":   `{"projects": ["pkgs/*"], "tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**", "package.json"], "outputs": ["dist/**"]}, "slow": {"cache": false}}}`,
				"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "mkdir -p dist && cp src/a.txt dist/a.txt", "slow": "echo $$ > slow.pid && exec sleep 300"}}`,
			})
			args := append(append([]string{}, m.add[1:]...), "@vzn/vx@"+npmVersion)
			if r := harness.Run(t, root, e, prog, args...); r.Code != 0 {
				t.Fatalf("%s", r)
			}
			checkInstalled(t, root, e, m)
			if m.allow != nil {
				checkAllowed(t, root, e, bin, m)
			}
		})
	}
	t.Run("plugins with npm", func(t *testing.T) { checkPlugins(t, reg, e) })
}

// checkPlugins: @vzn/vx-plugin-vitest and @vzn/vx-plugin-eslint from the
// registry, installed with npm beside @vzn/vx and declared by package
// name, give a project with a Vitest config and an ESLint flat config its
// test and lint tasks (vx show names the plugin as their command's
// source), and each installed plugin describes itself with the release's
// version.
func checkPlugins(t *testing.T, reg registry, e []string) {
	root := reach.Workspace(t, map[string]string{
		"package.json":             `{"name": "vx-npm-plugins-test", "private": true}`,
		".npmrc":                   reg.npmrc(),
		"vx.workspace.json":        `{"projects": ["pkgs/*"], "plugins": ["@vzn/vx-plugin-vitest", "@vzn/vx-plugin-eslint"]}`,
		"eslint.config.mjs":        "export default [];\n",
		"pkgs/a/package.json":      `{"name": "a"}`,
		"pkgs/a/src/index.js":      "export const a = 1;\n",
		"pkgs/a/vitest.config.mjs": "export default { test: {} };\n",
	})
	pkgs := []string{"@vzn/vx@" + npmVersion, "@vzn/vx-plugin-vitest@" + npmVersion, "@vzn/vx-plugin-eslint@" + npmVersion}
	if r := harness.Run(t, root, e, "npm", append([]string{"install", "--save-dev"}, pkgs...)...); r.Code != 0 {
		t.Fatalf("%s", r)
	}
	vx := reach.Command{filepath.Join(root, "node_modules", ".bin", "vx")}
	r := vx.Run(t, root, e, "show", "a", "--format", "json")
	var show struct {
		Projects []struct {
			Tasks []struct{ Task, Command, CommandSource string }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &show); err != nil || len(show.Projects) != 1 {
		t.Fatalf("vx show a --format json: %v\n%s", err, r)
	}
	got := map[string]string{}
	for _, task := range show.Projects[0].Tasks {
		got[task.Task] = task.Command + " (" + task.CommandSource + ")"
	}
	if want := map[string]string{"test": "vitest run (plugin)", "lint": "eslint . (plugin)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("vx show a: tasks %v, want %v\n%s", got, want, r)
	}
	for _, p := range []string{"vitest", "eslint"} {
		cmd := exec.Command("node", filepath.Join(root, "node_modules", "@vzn", "vx-plugin-"+p, "plugin.mjs"))
		cmd.Dir, cmd.Env = root, e
		cmd.Stdin = strings.NewReader(`{"protocol": 1, "stage": "describe", "options": {}}`)
		out, err := cmd.Output()
		var d struct{ Name, Version string }
		if err != nil || json.Unmarshal(out, &d) != nil || d.Name != p || d.Version != npmVersion {
			t.Errorf("the installed @vzn/vx-plugin-%s describes itself as %+v (%v), want version %s\n%s", p, d, err, npmVersion, out)
		}
	}
}

// checkInstalled runs the checks on @vzn/vx installed in root by m.
func checkInstalled(t *testing.T, root string, e []string, m manager) {
	t.Helper()
	vx := reach.Command{filepath.Join(root, "node_modules", ".bin", "vx")}
	launcher, err := os.ReadFile(filepath.Join(root, "node_modules", "@vzn", "vx", "bin", "vx"))
	if err != nil {
		t.Fatal(err)
	}
	if native := bytes.HasPrefix(launcher, []byte("\x7fELF")) || bytes.HasPrefix(launcher, []byte("\xcf\xfa\xed\xfe")); native != m.native {
		t.Errorf("@vzn/vx/bin/vx native %v, want %v (install script %s)", native, m.native, map[bool]string{true: "run", false: "not run"}[m.native])
	}
	want := "vx " + version + " (commit " + commit + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if r := vx.Run(t, root, e, "--version"); r.Code != 0 || strings.TrimSpace(r.Stdout) != want {
		t.Fatalf("vx --version: want %q\n%s", want, r)
	}
	reach.ColdWarm(t, vx, root, e)
	checkDoctor(t, vx, root, e, m)
	if !m.native {
		checkLauncherStops(t, vx, root, e)
	}
	vxd := reach.Command{filepath.Join(root, "node_modules", ".bin", "vxd")}
	reach.MCP(t, reach.Command{"npx", "--no", "vx", "mcp"}, root, e, func() {
		checkOwnDaemon(t, root)
		vxd.Run(t, root, e, "stop")
	})
}

// checkDoctor: vx doctor names the kind of install (with the command that
// allows the install script, where there is one) and gives the npx
// configuration, vx being on no PATH here.
func checkDoctor(t *testing.T, vx reach.Command, root string, e []string, m manager) {
	t.Helper()
	r := vx.Run(t, root, e, "doctor", "--format", "json")
	var out struct {
		Checks []struct {
			Name, Status, Detail, Fix string
		} `json:"checks"`
		MCPConfig string `json:"mcpConfig"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("vx doctor --format json: %v\n%s", err, r)
	}
	kind := map[bool]string{true: "npm package, native binary", false: "npm package, through the Node launcher"}[m.native]
	found := false
	for _, c := range out.Checks {
		if c.Name == "install" {
			found = true
			if c.Status != "ok" || !strings.HasPrefix(c.Detail, kind) || (!m.native && c.Fix == "") {
				t.Errorf("install check %+v, want ok, %q (and a fix for the launcher)", c, kind)
			}
			if m.allow != nil && !strings.Contains(c.Fix, strings.Join(m.allow, " ")) {
				t.Errorf("install check's fix %q does not give %q", c.Fix, strings.Join(m.allow, " "))
			}
		}
	}
	if !found || !strings.Contains(out.MCPConfig, `"npx"`) {
		t.Errorf("vx doctor: install check found %v, mcpConfig %s; want the install named and npx\n%s", found, out.MCPConfig, r)
	}
}

// checkOwnDaemon: the vxd that vx mcp started is the one installed in
// root's node_modules (beside the real vx), not another on PATH.
func checkOwnDaemon(t *testing.T, root string) {
	t.Helper()
	var d struct {
		PID int `json:"pid"`
	}
	b, err := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.json"))
	if err != nil || json.Unmarshal(b, &d) != nil || d.PID == 0 {
		t.Fatalf("no running vxd recorded in .vx/daemon/vxd.json: %v %s", err, b)
	}
	exe, ok, err := processExe(d.PID)
	if !ok {
		return
	}
	if err != nil || !strings.HasPrefix(exe, filepath.Join(root, "node_modules")+string(filepath.Separator)) {
		t.Errorf("vxd (pid %d) runs %s (%v), want the vxd in %s/node_modules", d.PID, exe, err, root)
	}
}

// checkLauncherStops: SIGTERM to the Node launcher alone (as an MCP client
// stopping its server does) reaches vx behind it, which stops its task:
// nothing outlives the launcher.
func checkLauncherStops(t *testing.T, vx reach.Command, root string, e []string) {
	t.Helper()
	cmd := exec.Command(vx[0], "run", "slow", "--filter", "a")
	cmd.Dir, cmd.Env = root, e
	// A file, not a pipe: Wait must return when the launcher ends, not
	// when the last process holding the pipe (a surviving task) does.
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(root, "pkgs", "a", "slow.pid")
	var task int
	harness.WaitFor(t, time.Minute, "the slow task to start", func() bool {
		b, err := os.ReadFile(pidFile)
		task, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && task > 0
	})
	t.Cleanup(func() { _ = syscall.Kill(task, syscall.SIGKILL) }) // should it survive
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		b, _ := os.ReadFile(out.Name())
		t.Errorf("vx run slow through the launcher exited 0 after SIGTERM\n%s", b)
	}
	harness.WaitFor(t, time.Minute, "the task to end after the launcher's SIGTERM", func() bool { return !harness.Alive(task) })
}

// checkAllowed runs the command vx doctor gives for allowing the install
// script; then node_modules/.bin/vx is the native binary and still works.
func checkAllowed(t *testing.T, root string, e []string, bin string, m manager) {
	t.Helper()
	prog := m.allow[0]
	if prog != "npm" {
		prog = filepath.Join(bin, prog)
	}
	if r := harness.Run(t, root, e, prog, m.allow[1:]...); r.Code != 0 {
		t.Fatalf("%s", r)
	}
	b, err := os.ReadFile(filepath.Join(root, "node_modules", "@vzn", "vx", "bin", "vx"))
	if err != nil || !(bytes.HasPrefix(b, []byte("\x7fELF")) || bytes.HasPrefix(b, []byte("\xcf\xfa\xed\xfe"))) {
		t.Errorf("after %v, @vzn/vx/bin/vx is still not the native binary (%v)", m.allow, err)
	}
	vx := reach.Command{filepath.Join(root, "node_modules", ".bin", "vx")}
	if r := vx.Run(t, root, e, "--version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "vx "+version+" ") {
		t.Errorf("vx --version after %v\n%s", m.allow, r)
	}
}
