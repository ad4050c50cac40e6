//go:build !windows

package live_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLinkCheckAfterARestart: a link made while vxd is down (no journal
// sees it) to a project outside, the memo of the earlier vxd's epoch
// still there: the runs of the new vxd, in an environment that cannot
// repeat the memo, do the link check and leave no memo, so an edit behind
// the link is seen.
func TestLinkCheckAfterARestart(t *testing.T) {
	root, outside := linkedWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	settleRepeat(t, root)
	stopDaemon(t, root)

	writeExt(t, outside, "one")
	if err := os.Symlink(filepath.Join(outside, "ext"), filepath.Join(root, "packages/ext")); err != nil {
		t.Fatal(err)
	}
	waitJournal(t, startDaemon(t, root))
	env := []string{"VX_TEST_OTHER=1"}
	wantNoRepeat(t, root, "a link made while vxd was down", "ext#build", env)
	settleNoOps(t, root)
	for i := 0; i < 2; i++ {
		if s, why := repeatRun(t, root, env); executed(s) != "" {
			t.Fatalf("a no-op run executed %q (%s)", executed(s), why)
		}
	}
	writeExt(t, outside, "two")
	wantNoRepeat(t, root, "a linked project's package.json edited", "ext#build", env)
}
