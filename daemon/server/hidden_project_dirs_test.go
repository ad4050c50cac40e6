package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// A project glob whose segment starts with "." (".github/actions/*",
// "apps/.*") takes hidden directories, as a run does: vxd finds a new
// one without a restart. A hidden directory no glob asks for is not a
// project and reloads nothing.
func TestNewHiddenProjectDirIsFound(t *testing.T) {
	root := newWorkspace(t, `{"projects": ["apps/*", "apps/.*", "tools/**/.*"], "tasks": {"build": {"command": "true"}}}`)
	if err := os.MkdirAll(filepath.Join(root, "tools", "ci"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := serve(t, root, -1)
	if st := r.status(t); st.Projects != 1 {
		t.Fatalf("status before: %d projects, want 1", st.Projects)
	}
	add := func(dir, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "package.json"), []byte(`{"name": "`+name+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	add(filepath.Join("apps", ".hidden"), "hidden")
	var st *wire.Status
	eventually(t, "serving the hidden project apps/.hidden", func() bool {
		st = r.status(t)
		return st.Projects == 2
	})
	add(filepath.Join("tools", "ci", ".action"), "action")
	eventually(t, "serving the hidden project tools/ci/.action", func() bool {
		st = r.status(t)
		return st.Projects == 3
	})
	if st.ConfigError != "" {
		t.Errorf("config error %q", st.ConfigError)
	}
}

// A tool's hidden directory (a project's .turbo, a root .cache) is a new
// project only where a glob takes it: anywhere else vxd reloads nothing
// for it.
func TestHiddenDirCountsOnlyWhereAGlobTakesIt(t *testing.T) {
	root := t.TempDir()
	w := &watcher{d: &daemon{root: root}, globs: []string{"apps/*", "./apps/.*", "tools/**/.*", "!apps/.old", "libs/{a,.b}"}}
	for rel, want := range map[string]bool{
		"apps/web":              true,
		"apps/.hidden":          true,
		"apps/web/.turbo":       false,
		"tools/.x":              true,
		"tools/ci/deep/.y":      true,
		"tools/ci/node_modules": true,  // not hidden: the name is another filter's
		"libs/.b":               false, // as a run: the segment must start with "."
		"libs/.c":               false,
		".cache":                false,
		"packages/.x":           false,
		"tools/.git":            false,
	} {
		if got := w.takesHidden(filepath.Join(root, filepath.FromSlash(rel))); got != want {
			t.Errorf("takesHidden(%s) = %v, want %v", rel, got, want)
		}
	}
}
