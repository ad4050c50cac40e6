package migrate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNxOptionNameIsNotShellText: an nx:run-commands option vx init
// forwards as --name=value has its value quoted, and a name that is not
// an option's (a hostile or mistaken project.json key holding ";", "$(",
// spaces) is not written into the command at all, where it ran as shell
// text in every vx run of the task; a todo names it instead.
func TestNxOptionNameIsNotShellText(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	pwned := filepath.Join(t.TempDir(), "pwned")
	const g = `{"graph": {"nodes": {
  "a": {"name": "a", "type": "lib", "data": {"root": "libs/a", "name": "a", "tags": [], "targets": {
    "fmt": {"executor": "nx:run-commands", "options": {"command": "echo fmt", "cwd": "libs/a",
      "x; touch PWNED; echo": "1", "$(touch PWNED)": "2", "max-warnings": "$(touch PWNED)", "args": "src"}}
  }}},
  "web": {"name": "web", "type": "app", "data": {"root": "apps/web", "name": "web", "tags": [], "targets": {}}}
}, "dependencies": {"a": [], "web": []}}}`
	p := planWithGraph(t, dir, strings.ReplaceAll(g, "PWNED", pwned))
	for _, key := range []string{"x; touch ", "$(touch "} {
		if !hasTodo(p, key) {
			t.Errorf("no todo names the option %q…: %+v", key, p.Todos)
		}
	}
	m := applyAndLoad(t, p, dir)
	def, ok := m.Resolve("a", "fmt")
	if !ok {
		t.Fatal("a#fmt is not defined")
	}
	cmd := exec.Command("sh", "-c", def.Command)
	cmd.Dir = filepath.Join(dir, "libs", "a")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running %q: %v\n%s", def.Command, err, out)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("running a#fmt's command %q ran shell text from an option's name or value", def.Command)
	}
}
