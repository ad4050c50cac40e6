package live_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestRepeatKeepsTheHistoryWhole: a repeat writes its run to the history
// as an ordinary run would. With the history removed, the run after is
// one that records its keys' components (so `vx why` can later say what
// moved); with the history corrupt, the run says it moved it aside.
func TestRepeatKeepsTheHistoryWhole(t *testing.T) {
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	wantNoRepeat(t, root, "vxd's start", "", nil)
	settleRepeat(t, root)

	for _, suffix := range []string{"", "-wal", "-shm"} {
		mustRemove(t, filepath.Join(root, ".vx", "vx.db"+suffix))
	}
	repeatRun(t, root, nil)
	harness.WriteFile(t, filepath.Join(root, "packages/c/src/f1.js"), "edited\n")
	wantNoRepeat(t, root, "an edited input", "c#build", nil)
	r := run(t, root, vxBin, "why", "c#build", "--format", "json")
	var why struct {
		Summary string
		Diff    json.RawMessage
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &why) != nil || len(why.Diff) == 0 || string(why.Diff) == "null" {
		t.Fatalf("vx why after a run on a fresh history: want the files that moved\n%s", r)
	}
	if !strings.Contains(r.Stdout, "f1.js") {
		t.Fatalf("vx why does not name the edited file\n%s", r)
	}

	settleRepeat(t, root)
	for _, suffix := range []string{"-wal", "-shm"} {
		mustRemove(t, filepath.Join(root, ".vx", "vx.db"+suffix))
	}
	if err := os.WriteFile(filepath.Join(root, ".vx", "vx.db"), []byte("not a database, not at all, and long enough to be read as one"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, why2 := repeatRun(t, root, nil)
	moved := false
	for _, w := range s.Warnings {
		moved = moved || strings.Contains(w, "moved it aside")
	}
	if !moved {
		t.Fatalf("the run on a corrupt history does not say it moved it aside: warnings %q, repeatOf %q (%s)", s.Warnings, s.RepeatOf, why2)
	}
}
