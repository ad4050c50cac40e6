//go:build !windows

package engine_test

// The sandbox's own tests: they need Linux's Landlock and seccomp (what
// other OSes get is TestSandboxOnAHostWithNone).

import (
	"crypto/rand"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSandboxConfinesTasksAndRecordsViolations(t *testing.T) {
	t.Parallel()
	token := "vxsecret-" + rand.Text()
	ws := sandboxWorkspace(t, `{
		"build":  { "outputs": ["dist/**"], "sandbox": { "mode": "enforce" },
		            "command": "mkdir -p dist && echo ok > dist/out && echo t > \"$TMPDIR/t\" && echo \"$TMPDIR\" > dist/tmpdir; echo x > ../outside-enforce; sh -c 'echo y > ../child-enforce'; true" },
		"deny":   { "sandbox": { "mode": "enforce", "write": ["gen/**"] }, "command": "echo g > gen/ok && echo x > ../denied" },
		"rep":    { "outputs": ["dist/**"], "sandbox": { "mode": "report" }, "command": "echo x > ../reported; sh -c 'echo y > ../child-reported'" },
		"secret": { "cache": false, "sandbox": { "mode": "report" }, "exec": { "env": { "TOKEN": { "secret": true } } }, "command": "echo s > \"../leak-$TOKEN\"" }
	}`)
	env := []string{"TOKEN=" + token}
	rows, _, r := sbRun(t, ws, env, 1, "build", "deny", "rep", "secret", "--continue")
	if strings.Contains(r.Stdout+r.Stderr, token) {
		t.Fatalf("the secret appears in the run's output\n%s", r)
	}

	// enforce: inside the outputs and the temp dir fine, outside denied for
	// the shell and for its child.
	b := rows["app#build"]
	if b.Status != "passed" || readFile(t, filepath.Join(ws, "app/dist/out")) != "ok\n" {
		t.Fatalf("app#build: %+v\n%s", b, r)
	}
	if tmp := strings.TrimSpace(readFile(t, filepath.Join(ws, "app/dist/tmpdir"))); !strings.HasPrefix(tmp, filepath.Join(ws, ".vx", "tmp")) || exists(filepath.Join(tmp, "t")) {
		t.Errorf("TMPDIR %q: want the task's own temp dir under .vx/tmp, emptied after the task", tmp)
	}
	for _, f := range []string{"outside-enforce", "child-enforce"} {
		if exists(filepath.Join(ws, f)) {
			t.Errorf("enforce let %s be written", f)
		}
	}
	if len(b.Violations) != 2 || b.Violations[0].Path != filepath.Join(ws, "outside-enforce") || !b.Violations[0].Denied ||
		b.Violations[1].Path != filepath.Join(ws, "child-enforce") || !b.Violations[1].Denied || b.Violations[0].Op != "create" {
		t.Errorf("app#build violations = %+v", b.Violations)
	}

	// A task denied into failure: failed, its violation on the row.
	d := rows["app#deny"]
	if d.Status != "failed" || len(d.Violations) != 1 || d.Violations[0].Path != filepath.Join(ws, "denied") || !exists(filepath.Join(ws, "app/gen/ok")) {
		t.Errorf("app#deny: %+v", d)
	}

	// report: through, recorded, child included, cached as without a sandbox.
	rp := rows["app#rep"]
	if !exists(filepath.Join(ws, "reported")) || !exists(filepath.Join(ws, "child-reported")) {
		t.Errorf("report mode blocked a write")
	}
	if len(rp.Violations) != 2 || rp.Violations[0].Denied || rp.Violations[1].Process != "sh" {
		t.Errorf("app#rep violations = %+v", rp.Violations)
	}

	// The secret in a path reads ***.
	sv := rows["app#secret"].Violations
	if len(sv) != 1 || sv[0].Path != filepath.Join(ws, "leak-***") {
		t.Errorf("app#secret violations = %+v, want the path with the secret masked", sv)
	}

	// Footer and vx last name them; the history keeps them.
	h := vx(t, ws, env, "run", "build", "rep", "deny", "secret", "--continue", "--force")
	for _, want := range []string{"Sandbox: app#deny: 1 violation", "denied create " + filepath.Join(ws, "denied") + " (sh, pid", "Sandbox (report): 2 tasks wrote"} {
		if !strings.Contains(h.Stdout, want) {
			t.Errorf("the footer lacks %q\n%s", want, h)
		}
	}
	last := vxOK(t, ws, env, "last")
	if !strings.Contains(last.Stdout, "sandbox: app#rep") || !strings.Contains(last.Stdout, "reported write "+filepath.Join(ws, "reported")) ||
		!strings.Contains(last.Stdout, "reported write "+filepath.Join(ws, "leak-***")) {
		t.Errorf("vx last lacks the violations\n%s", last)
	}
	for _, out := range []string{h.Stdout + h.Stderr, last.Stdout, vxOK(t, ws, env, "last", "--format", "json").Stdout} {
		if strings.Contains(out, token) {
			t.Fatalf("the secret appears in a violation record")
		}
	}
	rows2, _, _ := sbRun(t, ws, env, 0, "build", "rep")
	if rows2["app#build"].Cache != "hit" || rows2["app#rep"].Cache != "hit" {
		t.Errorf("enforce task that passed must be a hit, and a report task that violated too (report mode changes no caching): %+v", rows2)
	}

	// vx show and vx info.
	var show struct {
		Projects []struct {
			Tasks []struct {
				Sandbox *struct {
					Mode    string
					Network bool
					Write   []string
				} `json:"sandbox"`
			} `json:"tasks"`
		} `json:"projects"`
	}
	answerJSON(t, ws, &show, "show", "app#deny")
	if len(show.Projects) != 1 || len(show.Projects[0].Tasks) != 1 {
		t.Fatalf("vx show app#deny: %+v", show)
	}
	if sb := show.Projects[0].Tasks[0].Sandbox; sb == nil || sb.Mode != "enforce" || !sb.Network || strings.Join(sb.Write, ",") != "gen/**" {
		t.Errorf("vx show app#deny sandbox = %+v", sb)
	}
	var info struct {
		Sandbox struct {
			Landlock bool
			ABI      int
			Enforced []string
			Observer string
			Tasks    int
		} `json:"sandbox"`
	}
	answerJSON(t, ws, &info, "info")
	if !info.Sandbox.Landlock || info.Sandbox.ABI < 4 || info.Sandbox.Observer == "" || info.Sandbox.Tasks != 4 {
		t.Errorf("vx info sandbox = %+v", info.Sandbox)
	}
}

func TestSandboxNetworkFalseDeniesLoopbackConnect(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to connect from a task (/dev/tcp)")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ws := sandboxWorkspace(t, `{
		"net":  { "cache": false, "sandbox": { "network": false }, "command": "bash -c 'exec 3<>/dev/tcp/127.0.0.1/`+port+`' && echo connected || echo refused" },
		"open": { "cache": false, "sandbox": { "network": true }, "command": "bash -c 'exec 3<>/dev/tcp/127.0.0.1/`+port+`' && echo connected || echo refused" }
	}`)
	rows, _, r := sbRun(t, ws, nil, 0, "net", "open")
	if !strings.Contains(r.Stderr, "app#net: refused") || !strings.Contains(r.Stderr, "app#open: connected") {
		t.Fatalf("want net refused and open connected\n%s", r)
	}
	v := rows["app#net"].Violations
	if len(v) != 1 || v[0].Op != "connect" || v[0].Address != "127.0.0.1:"+port || !v[0].Denied || v[0].Process != "bash" {
		t.Errorf("app#net violations = %+v", v)
	}
	if len(rows["app#open"].Violations) != 0 {
		t.Errorf("network:true recorded %+v", rows["app#open"].Violations)
	}
}

func TestSandboxOnAHostWithoutLandlock(t *testing.T) {
	t.Parallel()
	ws := sandboxWorkspace(t, `{
		"loose": { "cache": false, "sandbox": { "mode": "enforce" }, "command": "echo x > ../loose" },
		"first": { "cache": false, "command": "echo ran > ../first-ran" },
		"req":   { "cache": false, "dependsOn": ["first"], "sandbox": { "required": true }, "command": "echo x > ../req" }
	}`)
	off := []string{"VX_SANDBOX_FORCE_NO_LANDLOCK=1"}
	var info struct {
		Sandbox struct {
			Landlock bool
			ABI      int
			Enforced []string
			Reason   string
		} `json:"sandbox"`
	}
	r := vxOK(t, ws, off, "info", "--format", "json")
	decodeOnly(t, r, &info)
	if info.Sandbox.Landlock || info.Sandbox.ABI != 0 || len(info.Sandbox.Enforced) != 0 || !strings.Contains(info.Sandbox.Reason, "VX_SANDBOX_FORCE_NO_LANDLOCK") {
		t.Errorf("verdict without Landlock = %+v", info.Sandbox)
	}

	// Unconfined with a warning; the write is recorded as not denied.
	rows, warns, r := sbRun(t, ws, off, 0, "loose")
	if !exists(filepath.Join(ws, "loose")) || !strings.Contains(strings.Join(warns, "\n"), "app#loose: its sandbox is not enforced") {
		t.Errorf("want the task unconfined with a warning: %v\n%s", warns, r)
	}
	if v := rows["app#loose"].Violations; len(v) != 1 || v[0].Denied {
		t.Errorf("violations = %+v, want one, not denied", v)
	}

	// required: refused before anything runs, its dependency included.
	r = vx(t, ws, off, "run", "req")
	if r.Code == 0 || !strings.Contains(r.Stderr, "app#req declares a required sandbox") || exists(filepath.Join(ws, "first-ran")) || exists(filepath.Join(ws, "req")) {
		t.Errorf("want the run refused before anything ran\n%s", r)
	}
}
