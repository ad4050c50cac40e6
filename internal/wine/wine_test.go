package wine

import (
	"os"
	"testing"
)

// TestRunningTellsWine: Running is true exactly where the harness says
// the test runs under wine (tests/windows sets VX_TEST_UNDER_WINE=1), so
// what a test skips for wine is skipped there and nowhere else.
func TestRunningTellsWine(t *testing.T) {
	want := os.Getenv("VX_TEST_UNDER_WINE") == "1"
	if got := Running(); got != want {
		t.Fatalf("Running() = %v, want %v (VX_TEST_UNDER_WINE=%q)", got, want, os.Getenv("VX_TEST_UNDER_WINE"))
	}
}

// TestNeedSymlinksSkipsOnlyWhereNoneCanBeMade: off wine it never skips;
// under wine it skips only when a link cannot be made.
func TestNeedSymlinksSkipsOnlyWhereNoneCanBeMade(t *testing.T) {
	var skipped bool
	t.Run("probe", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		NeedSymlinks(t)
	})
	if !Running() && skipped {
		t.Fatal("NeedSymlinks skipped a test that does not run under wine")
	}
	if Running() && !skipped {
		dir := t.TempDir()
		if err := os.Symlink("x", dir+"/l"); err != nil {
			t.Fatalf("NeedSymlinks did not skip, and a link cannot be made: %v", err)
		}
		if _, err := os.Lstat(dir + "/l"); err != nil {
			t.Fatalf("NeedSymlinks did not skip, and the link made is not there: %v", err)
		}
	}
}
