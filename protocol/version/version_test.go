package version

import (
	"runtime"
	"testing"
)

// TestLineNamesCommitAndPlatform: --version says which commit and which
// OS/architecture a binary is, so a user can tell the release archive
// they unpacked apart from another.
func TestLineNamesCommitAndPlatform(t *testing.T) {
	old := Commit
	defer func() { Commit = old }()
	Commit = "abc1234"
	if got, want := Line("vx"), "vx "+Version+" (commit abc1234, "+runtime.GOOS+"/"+runtime.GOARCH+")"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	Commit = ""
	if got := commit(); got == "" {
		t.Error("an unstamped commit is empty; want the build's revision or \"unknown\"")
	}
}
