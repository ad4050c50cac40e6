package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNewWritesNestedFiles: every file lands at its slash path with its
// content, its directories made.
func TestNewWritesNestedFiles(t *testing.T) {
	root := New(t, map[string]string{"a.json": "{}", "pkgs/b/package.json": `{"name": "b"}`})
	for name, want := range map[string]string{"a.json": "{}", "pkgs/b/package.json": `{"name": "b"}`} {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}
