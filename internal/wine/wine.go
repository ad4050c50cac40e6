// Package wine tells a test whether it runs as a Windows program under
// wine, and skips, only there, what wine cannot show: tests/windows runs
// the engine packages' tests under wine on Linux, and the hosted Windows
// runner runs the same tests on Windows, where nothing here skips.
package wine

import (
	"os"
	"path/filepath"
	"testing"
)

// NeedSymlinks skips t under wine when symbolic links cannot be made
// there: wine 8 answers CreateSymbolicLink with success and creates
// nothing. Elsewhere it does nothing; a test that makes links fails as
// it would.
func NeedSymlinks(t testing.TB) {
	t.Helper()
	if !Running() {
		return
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "probe")
	if err := os.Symlink("target", link); err == nil {
		if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return
		}
	}
	t.Skip("wine cannot make symbolic links (CreateSymbolicLink answers success and makes none): the hosted Windows runner runs this")
}

// Skip skips t under wine, saying why; elsewhere it does nothing.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Running() {
		t.Skip("under wine: " + why + "; the hosted Windows runner runs this")
	}
}
