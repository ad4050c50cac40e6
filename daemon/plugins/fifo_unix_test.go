//go:build unix

package plugins

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/internal/testtree"
)

// TestHashFileRefusesAFIFOWithoutBlocking: a matched file that is (or
// links to) a FIFO is refused at once; opening it first would wait for a
// writer forever and hang the workspace's load.
func TestHashFileRefusesAFIFOWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- hashFile(fifo, sha256.New()) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO was hashed as a file")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hashing a FIFO blocked (it was opened before it was looked at)")
	}
}

// TestIdentityOfAFIFOModuleDoesNotBlock: a plugin entry that is a FIFO,
// or a module its entry imports that is one, neither hangs the listing
// of its sources (vxd's watch) nor its resolve: each returns at once, an
// entry that is a FIFO refused (an imported one is no module: no file).
func TestIdentityOfAFIFOModuleDoesNotBlock(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{"tools/p/plugin.mjs": `import "./pipe.mjs";`})
	for _, p := range []string{"tools/p/pipe.mjs", "tools/q/plugin.mjs"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(root, p), 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
	}
	for _, spec := range []string{"./tools/p/plugin.mjs", "./tools/q/plugin.mjs"} {
		done := make(chan error, 1)
		go func() {
			IdentitySources(root, spec)
			_, err := resolve(root, Decl{Spec: spec, File: "vx.workspace.json"})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil && spec == "./tools/q/plugin.mjs" {
				t.Errorf("%s, a FIFO, resolved", spec)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("listing or resolving %s blocked on a FIFO", spec)
		}
	}
}
