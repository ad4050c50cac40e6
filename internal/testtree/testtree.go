// Package testtree writes small file trees (a workspace's config and
// package.json files) for tests, failing the test on any error.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes each file of files (slash-separated path → content) under
// root, making the directories it needs.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// New writes files into a fresh t.TempDir and returns that directory.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	Write(t, root, files)
	return root
}
