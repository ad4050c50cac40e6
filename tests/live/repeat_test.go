//go:build !windows

package live_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/vzn/vx/protocol/wire"
)

// repeatRun is `vx run build ARGS --format json` with the debug log and
// env added; it answers the summary and why the run did or did not repeat
// the last one (the "repeat" log line).
func repeatRun(t *testing.T, root string, env []string, args ...string) (*wire.RunSummary, string) {
	t.Helper()
	s, lines, _ := debugRun(t, root, env, args...)
	why := ""
	for _, l := range lines {
		if l.Message == "repeat" || l.Message == "no repeat memo" {
			why += l.Message + ": " + l.Why + "; "
		}
	}
	return s, why
}

// wantRepeat runs and wants the run to repeat the run prev, every task a
// hit with prev's key, recorded in the history as a run of its own.
func wantRepeat(t *testing.T, root string, prev *wire.RunSummary, env ...string) *wire.RunSummary {
	t.Helper()
	s, why := repeatRun(t, root, env)
	if s.RepeatOf != prev.RunID {
		t.Fatalf("want a repeat of run %s, got repeatOf %q (%s)", prev.RunID, s.RepeatOf, why)
	}
	if s.RunID == prev.RunID || len(s.Tasks) != len(prev.Tasks) || s.Totals.Cached != len(prev.Tasks) || !s.OK {
		t.Fatalf("a repeat: %+v", s)
	}
	for i, row := range s.Tasks {
		if row.Key != prev.Tasks[i].Key || row.TaskID != prev.Tasks[i].TaskID || row.Cache != wire.CacheHit {
			t.Fatalf("the repeat's row %d is %+v, the repeated run's %+v", i, row, prev.Tasks[i])
		}
	}
	return s
}

// wantNoRepeat runs and wants an ordinary run that executed exactly want
// (space-separated task ids, "" for a no-op).
func wantNoRepeat(t *testing.T, root, what, want string, env []string, args ...string) *wire.RunSummary {
	t.Helper()
	s, why := repeatRun(t, root, env, args...)
	if s.RepeatOf != "" {
		t.Fatalf("after %s the run repeated run %s (%s)", what, s.RepeatOf, why)
	}
	if got := executed(s); got != want {
		t.Fatalf("after %s the run executed %q, want %q (%s)", what, got, want, why)
	}
	return s
}

// settleRepeat waits out the listing's racy window and runs no-op runs
// until one repeats the one before (the listing a memo needs is saved
// by a run outside that window and vouched for by the next one); it
// answers the repeat.
func settleRepeat(t *testing.T, root string, env ...string) *wire.RunSummary {
	t.Helper()
	settle()
	prev, _ := repeatRun(t, root, env)
	for i := 0; i < 3; i++ {
		s, why := repeatRun(t, root, env)
		if executed(s) != "" {
			t.Fatalf("a no-op run executed %q (%s)", executed(s), why)
		}
		if s.RepeatOf != "" {
			// The run before left the memo, or repeated it too.
			if s.RepeatOf != prev.RunID && s.RepeatOf != prev.RepeatOf {
				t.Fatalf("the run repeated %s, not the run before it (%s)", s.RepeatOf, prev.RunID)
			}
			return s
		}
		prev = s
	}
	t.Fatal("no run repeated the one before it")
	return nil
}

// TestRepeatSeesEveryChange: with vxd up, a fully cached run leaves a memo
// and the next identical run repeats it without loading the workspace;
// an edited, added or removed input, a replaced output, another
// environment or command line, a git index change, lost output stamps and
// a restarted vxd each make the next run an ordinary one that sees the
// change.
func TestRepeatSeesEveryChange(t *testing.T) {
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	wantNoRepeat(t, root, "vxd's start", "", nil)
	rep := settleRepeat(t, root)
	// A repeat leaves the memo as it was: the next run repeats the same run.
	if again := wantRepeat(t, root, &wire.RunSummary{RunID: rep.RepeatOf, Tasks: rep.Tasks}); again.RepeatOf != rep.RepeatOf {
		t.Fatalf("the second repeat repeated %s, the first %s", again.RepeatOf, rep.RepeatOf)
	}
	hist := run(t, root, vxBin, "last", "--format", "json")
	if hist.Code != 0 || !strings.Contains(hist.Stdout, `"cache": "hit"`) && !strings.Contains(hist.Stdout, `"cache":"hit"`) {
		t.Fatalf("vx last after a repeat\n%s", hist)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	steps := []struct {
		what   string
		change func()
		want   string
		env    []string
		args   []string
	}{
		{what: "an edited input", change: func() { harness.WriteFile(t, filepath.Join(root, "packages/b/src/f1.js"), "edited\n") }, want: "b#build c#build"},
		{what: "an added input", change: func() { harness.WriteFile(t, filepath.Join(root, "packages/a/src/new.js"), "new\n") }, want: "a#build b#build c#build"},
		{what: "a removed input", change: func() { mustRemove(t, filepath.Join(root, "packages/c/src/f0.js")) }, want: "c#build"},
		{what: "a replaced output", change: func() { harness.WriteFile(t, filepath.Join(root, "packages/a/dist/out.txt"), "tampered\n") }},
		{what: "another environment", change: func() {}, env: []string{"VX_TEST_EXTRA=1"}},
		{what: "another command line", change: func() {}, args: []string{"--concurrency", "1"}},
		{what: "lost output stamps", change: func() { mustRemove(t, filepath.Join(root, ".vx", "outputs")) }},
		{what: "an ignored file the index now tracks", change: func() {
			git("add", "-f", "packages/a/src/scratch/gen.js")
		}, want: "a#build b#build c#build"},
		{what: "a restarted vxd", change: func() {
			stopDaemon(t, root)
			waitJournal(t, startDaemon(t, root))
		}},
	}
	for _, st := range steps {
		if st.what == "an ignored file the index now tracks" {
			// Written (and seen by the journal) before the repeat below:
			// ignored, it is no input until git tracks it.
			harness.WriteFile(t, filepath.Join(root, "packages/a/src/scratch/gen.js"), "gen\n")
			wantNoRepeat(t, root, "an ignored file", "", nil)
			settleRepeat(t, root)
		}
		st.change()
		wantNoRepeat(t, root, st.what, st.want, st.env, st.args...)
		if len(st.env) > 0 {
			// The other environment's no-op leaves its own memo; the
			// first environment's next run is an ordinary one again.
			settleRepeat(t, root, st.env...)
			wantNoRepeat(t, root, "another environment's memo", "", nil)
		}
		settleRepeat(t, root)
	}
	out, err := os.ReadFile(filepath.Join(root, "packages/a/dist/out.txt"))
	if err != nil || strings.Contains(string(out), "tampered") || !strings.Contains(string(out), "gen") {
		t.Fatalf("packages/a/dist/out.txt = %q (%v): want the tracked gen.js and no tampering", out, err)
	}
}

// gitCommitAll makes root a git repository with everything committed.
func gitCommitAll(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestRepeatKeepsSecretsMasked: a repeated run prints its tasks' logs
// masked as the ordinary run did, and neither the memo nor anything else
// under .vx/ holds a secret of the environment or of the configuration.
func TestRepeatKeepsSecretsMasked(t *testing.T) {
	root := filepath.Join(harness.TempRoot(t), "ws")
	const envSecret, inlineSecret = "envsecret-8c1d2e", "inlinesecret-77f0aa"
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["app"], "tasks": {"build": {
		"command": "echo token=$TOKEN inline=$INLINE && mkdir -p dist && echo built > dist/out.txt",
		"inputs": ["package.json"], "outputs": ["dist/**"],
		"exec": {"env": {"TOKEN": {"secret": true}, "INLINE": {"secret": true, "value": "`+inlineSecret+`"}}}}}}`)
	harness.WriteFile(t, filepath.Join(root, ".gitignore"), "dist/\n.vx/\n")
	harness.WriteFile(t, filepath.Join(root, "app", "package.json"), `{"name": "app"}`)
	gitCommitAll(t, root)
	t.Cleanup(func() { stopDaemon(t, root) })
	env := []string{"TOKEN=" + envSecret}
	repeatRun(t, root, env)
	waitJournal(t, startDaemon(t, root))
	rep := settleRepeat(t, root, env...)
	if rep.RepeatOf == "" {
		t.Fatal("no repeat")
	}
	// The same command line as settleRepeat's: the task lines on stderr.
	r := harness.Run(t, root, append(baseEnv(), env...), vxBin, "run", "build", "--format", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"repeatOf": "`+rep.RepeatOf) || !strings.Contains(r.Stderr, "app#build: token=*** inline=***") {
		t.Fatalf("want a repeat of %s printing the masked log\n%s", rep.RepeatOf, r)
	}
	for _, secret := range []string{envSecret, inlineSecret} {
		if strings.Contains(r.Stdout+r.Stderr, secret) {
			t.Fatalf("the repeat printed %s\n%s", secret, r)
		}
		err := filepath.Walk(filepath.Join(root, ".vx"), func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret %s in clear", p, secret)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A run the platform hears of leaves no memo (a repeat would not load the
// configuration that says where to push), so no later run repeats it;
// the same workspace without the platform does repeat.
func TestPlatformRunIsNeverRepeated(t *testing.T) {
	root := journalWorkspace(t)
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	platform := []string{"VX_PLATFORM_URL=http://127.0.0.1:1", "VX_PLATFORM_WORKSPACE=acme"}
	repeatRun(t, root, platform)
	settle()
	for i := 0; i < 3; i++ {
		wantNoRepeat(t, root, "a run the platform hears of", "", platform)
		if _, err := os.Stat(filepath.Join(root, ".vx", "repeat")); err == nil {
			t.Fatal("a run the platform hears of left a repeat memo")
		}
	}
	settleRepeat(t, root)
}
