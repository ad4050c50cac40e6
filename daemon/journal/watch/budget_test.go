package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// budgetJournal starts a journal of a small tree (pkg/a and pkg/b, three
// files each) that keeps the kqueue descriptor budget max, as on macOS.
func budgetJournal(t *testing.T, max int) (*Journal, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"pkg/a", "pkg/b"} {
		for _, f := range []string{"1.js", "2.js", "3.js"} {
			write(t, filepath.Join(root, d, f), f)
		}
	}
	j, err := newJournal(root, 1000, NewBudget(max), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); j.Close() })
	go j.loop(ctx)
	return j, root
}

// settled waits until the journal proves (a token) or has stopped.
func settled(t *testing.T, j *Journal) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j.mu.Lock()
		done := j.epoch != "" || j.broken
		j.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the journal never became ready nor stopped")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A tree that needs more descriptors than the budget is not watched at
// all: the journal holds none, says why (vxd status), and every answer
// sends vx back to statting every file.
func TestJournalRefusesATreeOverItsDescriptorBudget(t *testing.T) {
	j, _ := budgetJournal(t, 5)
	settled(t, j)
	ans := j.token(t)
	if ans.Epoch != "" || ans.Complete || !strings.Contains(ans.Reason, "more files than vxd may watch within the open-file limit") {
		t.Errorf("answer = %+v, want no token and the limit named", ans)
	}
	j.mu.Lock()
	dirs := len(j.dirs)
	j.mu.Unlock()
	if fds, _ := j.budget.held(); dirs != 0 || fds != 0 {
		t.Errorf("%d directories watched, %d descriptors held after stopping; want none", dirs, fds)
	}
	if d := j.Describe(); !strings.HasPrefix(d, "not proving (") || !strings.Contains(d, "raise the hard open-file limit") || !strings.HasSuffix(d, "vx runs stat every file") {
		t.Errorf("vxd status says %q", d)
	}
}

// Within the budget the journal counts what kqueue holds: the directory
// and each entry of every watched directory, one more for each file made
// and one less for each removed; going past it later (the budget is shared
// with the configuration watcher) stops the journal.
func TestJournalKeepsItsDescriptorBudget(t *testing.T) {
	j, root := budgetJournal(t, 1000)
	settled(t, j)
	tok := j.token(t)
	if tok.Epoch == "" {
		t.Fatalf("no token: %s", tok.Reason)
	}
	held := func() int {
		used, _ := j.budget.held()
		return used
	}
	// root (1 + pkg and .vx, the barriers' parent), pkg (1 + a, b), a and
	// b (1 + three files each).
	if got := held(); got != 3+3+4+4 {
		t.Errorf("holding %d descriptors, want %d", got, 3+3+4+4)
	}
	start := held()
	write(t, filepath.Join(root, "pkg/a/4.js"), "4")
	j.token(t) // the barrier: every event before it is handled
	if got := held(); got != start+1 {
		t.Errorf("after a file was made: %d, want %d", got, start+1)
	}
	if err := os.Remove(filepath.Join(root, "pkg/a/4.js")); err != nil {
		t.Fatal(err)
	}
	j.token(t)
	if got := held(); got != start {
		t.Errorf("after it was removed: %d, want %d", got, start)
	}
	if d := j.Describe(); !strings.Contains(d, fmt.Sprintf("holding %d descriptors; vxd's watches %d of the 1000 they may", start, start)) {
		t.Errorf("vxd status says %q", d)
	}

	// Another watch takes all but two of the rest: the third new file is
	// one too many.
	if err := j.budget.take(1000 - start - 2); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"5.js", "6.js", "7.js"} {
		write(t, filepath.Join(root, "pkg/b", f), f)
	}
	ans := j.ask(t, tok)
	if ans.Complete || !strings.Contains(ans.Reason, "open-file limit") {
		t.Errorf("answer past the budget = %+v", ans)
	}
}

func TestBudgetForLimit(t *testing.T) {
	for _, c := range []struct {
		limit uint64
		want  int
	}{{256, 192}, {10240, 7680}, {1 << 63, 3 << 28}} {
		if got := budgetForLimit(c.limit); got != c.want {
			t.Errorf("budgetForLimit(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

// The configuration watcher comes first: a watch it needs that the budget
// has no room for stops the journal, which gives its share back; one that
// does not fit even then is refused.
func TestConfigurationWatchComesFirst(t *testing.T) {
	j, _ := budgetJournal(t, 100)
	settled(t, j)
	journals, _ := j.budget.held()
	dir := t.TempDir() // outside the workspace: no event for the journal
	for i := 0; i < 100-journals; i++ {
		write(t, filepath.Join(dir, fmt.Sprintf("f%d", i)), "x")
	}
	cost, err := j.budget.ReserveFirst(dir, j)
	if err != nil || cost != 1+100-journals {
		t.Fatalf("ReserveFirst = %d, %v; want %d", cost, err, 1+100-journals)
	}
	if used, _ := j.budget.held(); used != cost {
		t.Errorf("the budget counts %d, want the watch's %d alone", used, cost)
	}
	if ans := j.token(t); ans.Epoch != "" || !strings.Contains(ans.Reason, "open-file limit") {
		t.Errorf("the journal still answers: %+v", ans)
	}

	big := t.TempDir()
	for i := 0; i < 100; i++ {
		write(t, filepath.Join(big, fmt.Sprintf("f%d", i)), "x")
	}
	if _, err := j.budget.ReserveFirst(big, j); !errTooLarge(err) {
		t.Errorf("a watch larger than the whole budget: %v", err)
	}
	if used, _ := j.budget.held(); used != cost {
		t.Errorf("a refused watch left the budget at %d, want %d", used, cost)
	}
}
