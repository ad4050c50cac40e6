package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/vzn/vx/protocol/wire"
)

func newTestJournal(t *testing.T, limit int) (*Journal, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"pkg/src", ".vx", "node_modules/x", ".git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return startReadyJournal(t, root, limit), root
}

// startReadyJournal starts a journal of root, stopped at the test's end,
// and waits until it has a token.
func startReadyJournal(t *testing.T, root string, limit int) *Journal {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	j, err := Start(ctx, root, limit, NewBudget(descriptorBudget()), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); j.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for j.token(t).Epoch == "" {
		if time.Now().After(deadline) {
			t.Fatal("the journal never became ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return j
}

func (j *Journal) token(t *testing.T) wire.Changes {
	t.Helper()
	return j.Since(context.Background(), "", 0, false)
}

func (j *Journal) ask(t *testing.T, tok wire.Changes) wire.Changes {
	t.Helper()
	return j.Since(context.Background(), tok.Epoch, tok.Seq, true)
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every change is in the next answer (no wait: the barrier), with its
// directory when a name came or went; .vx, .git and node_modules are not
// watched; a renamed directory ends the epoch, and what is then made in it
// is reported under its new name.
func TestJournalAnswers(t *testing.T) {
	j, root := newTestJournal(t, 1000)
	tok := j.token(t)
	write(t, filepath.Join(root, "pkg/src/a.js"), "a")
	write(t, filepath.Join(root, ".vx/state"), "x")
	write(t, filepath.Join(root, "node_modules/x/i.js"), "x")
	write(t, filepath.Join(root, ".git/index"), "x")
	write(t, filepath.Join(root, "pkg/new/deep/b.js"), "b")
	ans := j.ask(t, tok)
	got := strings.Join(ans.Changed, " ")
	for _, want := range []string{"pkg/src/a.js", "pkg/src", "pkg/new", "pkg/new/deep", "pkg/new/deep/b.js", "pkg"} {
		if !ans.Complete || !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Fatalf("want %s among the changes: %+v", want, ans)
		}
	}
	if strings.Contains(got, ".vx") || strings.Contains(got, "node_modules") || strings.Contains(got, ".git") {
		t.Fatalf("unwatched paths reported: %s", got)
	}
	tok = ans
	if ans := j.ask(t, tok); !ans.Complete || len(ans.Changed) != 0 || ans.Seq != tok.Seq {
		t.Fatalf("nothing changed since: %+v", ans)
	}
	if err := os.Rename(filepath.Join(root, "pkg/new"), filepath.Join(root, "pkg/moved")); err != nil {
		t.Fatal(err)
	}
	if ans := j.ask(t, tok); ans.Complete || !strings.Contains(ans.Reason, "renamed") {
		t.Fatalf("after a directory rename: %+v, want a new epoch", ans)
	}
	tok = j.token(t)
	write(t, filepath.Join(root, "pkg/moved/deep/b.js"), "b2")
	if ans := j.ask(t, tok); !ans.Complete || strings.Join(ans.Changed, " ") != "pkg/moved/deep/b.js" {
		t.Fatalf("an edit in the renamed directory: %+v", ans)
	}
}

// Past its limit the journal starts a new epoch.
func TestJournalLimit(t *testing.T) {
	j, root := newTestJournal(t, 3)
	tok := j.token(t)
	for i := 0; i < 5; i++ {
		write(t, filepath.Join(root, "pkg/src", strings.Repeat("f", i+1)), "x")
	}
	if ans := j.ask(t, tok); ans.Complete || ans.Epoch == tok.Epoch {
		t.Fatalf("past the limit: %+v, want another epoch", ans)
	}
}

// An overflowed watch queue (as fsnotify reports it) ends the epoch: a
// token of before proves nothing, and the new epoch sees new changes.
func TestJournalOverflow(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pkg/src"), 0o755); err != nil {
		t.Fatal(err)
	}
	j, err := newJournal(root, 1000, NewBudget(descriptorBudget()), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error)
	done := make(chan struct{})
	go func() {
		defer close(done)
		j.begin("test")
		j.follow(ctx, j.w.Events, errs)
	}()
	t.Cleanup(func() { cancel(); <-done; j.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for j.token(t).Epoch == "" {
		if time.Now().After(deadline) {
			t.Fatal("the journal never became ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tok := j.token(t)
	errs <- fsnotify.ErrEventOverflow
	ans := j.ask(t, tok)
	if ans.Complete || ans.Epoch == tok.Epoch || !strings.Contains(ans.Reason, "overflowed") {
		t.Fatalf("after an overflow: %+v, want another epoch and the overflow as reason", ans)
	}
	tok = j.token(t)
	write(t, filepath.Join(root, "pkg/src/a.js"), "a")
	if ans := j.ask(t, tok); !ans.Complete || strings.Join(ans.Changed, " ") != "pkg/src pkg/src/a.js" {
		t.Fatalf("in the new epoch: %+v", ans)
	}
}
