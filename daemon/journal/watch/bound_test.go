package watch

import (
	"fmt"
	"strings"
	"testing"
)

// vxd status names the bound on the directories the journal watches (the
// bound of a saved listing too, docs/cache.md), so that a workspace
// growing towards it is seen before runs fall back to statting every file.
func TestJournalStatusNamesItsBound(t *testing.T) {
	j, _ := newTestJournal(t, 100)
	d := j.Describe()
	if want := fmt.Sprintf(" of at most %d directories", maxJournalDirs); !strings.HasPrefix(d, "watching ") || !strings.Contains(d, want) {
		t.Fatalf("describe = %q; want it to say %q", d, want)
	}
}
