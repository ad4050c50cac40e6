package plugins_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// TestAFailedPluginIsSaidWhereItsTasksAreMissed: with a declared plugin
// that crashes, vx show warns on stderr, vx run warns and keeps the
// warning in its JSON summary, vx doctor reports a problem, and a run of
// the task it would infer is refused naming the failed plugin. The rest
// of the workspace runs.
func TestAFailedPluginIsSaidWhereItsTasksAreMissed(t *testing.T) {
	reach.Tool(t, "node", "the plugin is a Node script")
	root := harness.TempRoot(t)
	for rel, text := range map[string]string{
		".gitignore":              ".vx/\n",
		"package.json":            `{"name":"root","private":true,"workspaces":["packages/*"]}`,
		"vx.workspace.json":       `{"projects":["packages/*"],"plugins":["./tools/crash.cjs"]}`,
		"tools/crash.cjs":         `process.stderr.write("cannot read the config\nat line 3\n"); process.exit(3);`,
		"packages/a/package.json": `{"name":"a","scripts":{"build":"node -e \"\""}}`,
	} {
		harness.WriteFile(t, filepath.Join(root, rel), text)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@vx.invalid", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	env := harness.Env()
	const said = "vx: warning: plugin ./tools/crash.cjs (vx.workspace.json): describe: it exited with exit status 3; its tasks and commands are left out (vx info shows the whole error)\n"

	show := harness.Run(t, root, env, vxBin, "show")
	if show.Code != 0 || show.Stderr != said {
		t.Errorf("vx show: want exit 0 and the warning alone on stderr\n%s", show)
	}
	run := harness.Run(t, root, env, vxBin, "run", "build", "--format", "json")
	var sum struct {
		Warnings []string `json:"warnings"`
	}
	if run.Code != 0 || !strings.Contains(run.Stderr, said) || json.Unmarshal([]byte(run.Stdout), &sum) != nil ||
		len(sum.Warnings) != 1 || !strings.HasPrefix(sum.Warnings[0], "plugin ./tools/crash.cjs (vx.workspace.json): describe: it exited") {
		t.Errorf("vx run build: want it to pass with the warning said and in its summary (%q)\n%s", sum.Warnings, run)
	}
	missing := harness.Run(t, root, env, vxBin, "run", "lint")
	if missing.Code != 2 || !strings.Contains(missing.Stderr, `unknown task "lint"`) || !strings.Contains(missing.Stderr, "plugin ./tools/crash.cjs failed to load") {
		t.Errorf("vx run lint: want the unknown task refused with the failed plugin named\n%s", missing)
	}
	doctor := harness.Run(t, root, env, vxBin, "doctor", "--format", "json")
	var out struct {
		Checks []struct{ Name, Status, Detail string } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(doctor.Stdout), &out); err != nil {
		t.Fatalf("vx doctor: %v\n%s", err, doctor)
	}
	found := false
	for _, c := range out.Checks {
		if c.Name == "plugins" {
			found = c.Status == "problem" && strings.Contains(c.Detail, "plugin ./tools/crash.cjs")
		}
	}
	if !found {
		t.Errorf("vx doctor: no plugins problem\n%s", doctor)
	}
}
