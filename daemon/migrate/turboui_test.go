package migrate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestTurboUIKept: vx init keeps turbo.json's "ui" as the workspace's ui,
// so a repository that chose turbo's live view (or its streamed lines)
// keeps that choice; a value turbo does not know is a todo.
func TestTurboUIKept(t *testing.T) {
	for _, tc := range []struct {
		name, ui, want string
		todo           bool
	}{
		{name: "tui", ui: `"tui"`, want: "tui"},
		{name: "stream", ui: `"stream"`, want: "stream"},
		{name: "unknown value", ui: `"fancy"`, todo: true},
		{name: "not a string", ui: `true`, todo: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(rel, text string) {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("package.json", `{"name": "root", "workspaces": ["pkgs/*"]}`)
			write("pkgs/a/package.json", `{"name": "a", "scripts": {"build": "echo a"}}`)
			write("turbo.json", `{"ui": `+tc.ui+`, "tasks": {"build": {}}}`)
			p, err := PlanInit(context.Background(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Apply(p, dir, nil); err != nil {
				t.Fatal(err)
			}
			m, err := workspace.Load(dir)
			if err != nil {
				t.Fatalf("loading the written config: %v\n%s", err, p.Files[0].Text)
			}
			if m.Config.UI != tc.want {
				t.Errorf("ui = %q, want %q\n%s", m.Config.UI, tc.want, p.Files[0].Text)
			}
			var todo bool
			for _, td := range p.Todos {
				todo = todo || (td.Item == "ui" && strings.Contains(td.Reason, "tui"))
			}
			if todo != tc.todo {
				t.Errorf("a todo for ui: %v, want %v (todos %v)", todo, tc.todo, p.Todos)
			}
		})
	}
}
