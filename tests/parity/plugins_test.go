//go:build !windows

package parity_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// addReferencePlugin declares the repository's reference plugin in the
// workspace at root and commits it: its read-only verb tasks-of is then a
// tool, held to its verb's --format json like every other. Its globs
// match no file here, so it infers no task and the other rows are as
// without it.
func addReferencePlugin(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the parity table holds a plugin verb, which the Node reference plugin answers")
	}
	ref, err := os.ReadFile(filepath.Join("..", "..", "examples", "plugins", "vx-plugin-reference.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(root, "tools", "ref.mjs"), string(ref))
	cfg := filepath.Join(root, "vx.workspace.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"projects": ["pkgs/*"],`, `"projects": ["pkgs/*"],
  "plugins": ["./tools/ref.mjs"],`, 1)
	if s == string(b) {
		t.Fatal("the parity workspace's config changed: declare the plugin elsewhere")
	}
	harness.WriteFile(t, cfg, s)
	commit(t, root, "the reference plugin")
}
