//go:build !windows

package live_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/vzn/vx/protocol/wire"
)

// journalWorkspace writes a committed git workspace of three packages, c
// depending on b depending on a, each building dist/out.txt from every
// file under its src/.
func journalWorkspace(t *testing.T) string {
	t.Helper()
	root := filepath.Join(harness.TempRoot(t), "ws")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**"], "outputs": ["dist/**"]}}}`)
	harness.WriteFile(t, filepath.Join(root, ".gitignore"), "dist/\n.vx/\nscratch/\n")
	deps := map[string]string{"a": "", "b": `"a": "*"`, "c": `"b": "*"`}
	for name, dep := range deps {
		dir := filepath.Join(root, "packages", name)
		harness.WriteFile(t, filepath.Join(dir, "package.json"), fmt.Sprintf(`{"name": %q, "dependencies": {%s}, `+
			`"scripts": {"build": "mkdir -p dist && find src -type f | sort | xargs cat > dist/out.txt"}}`, name, dep))
		for i := 0; i < 3; i++ {
			harness.WriteFile(t, filepath.Join(dir, "src", fmt.Sprintf("f%d.js", i)), fmt.Sprintf("export const %s%d = %d;\n", name, i, i))
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() { stopDaemon(t, root) })
	return root
}

// journalRuns numbers journalRun's runs.
var journalRuns atomic.Int64

// journalRun is `vx run build` with the debug log; it returns the summary
// and how the run's files were taken (the "change journal" log line).
func journalRun(t *testing.T, root string) (*wire.RunSummary, string) {
	t.Helper()
	// An environment no run had before: the run may not repeat an
	// earlier one (repeat_test.go), so it goes through the journal.
	s, lines, r := debugRun(t, root, []string{fmt.Sprintf("VX_TEST_JOURNAL_RUN=%d", journalRuns.Add(1))})
	how := ""
	for _, l := range lines {
		if l.Message == "change journal" {
			how = l.Files
		}
	}
	if how == "" {
		t.Fatalf("the run logged no change journal line\n%s", r)
	}
	return s, how
}

// debugLine is what the tests read of a line of vx's debug log.
type debugLine struct{ Message, Files, Why string }

// debugRun is `vx run build ARGS --format json` with the debug log and env
// added; it wants exit 0 and answers the summary and the log's lines.
func debugRun(t *testing.T, root string, env []string, args ...string) (*wire.RunSummary, []debugLine, result) {
	t.Helper()
	r := harness.Run(t, root, append(append(baseEnv(), "VX_LOG=debug"), env...), vxBin, append(append([]string{"run", "build"}, args...), "--format", "json")...)
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	var s wire.RunSummary
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("no summary: %v\n%s", err, r)
	}
	var lines []debugLine
	for _, line := range strings.Split(r.Stderr, "\n") {
		var l debugLine
		if json.Unmarshal([]byte(line), &l) == nil && l.Message != "" {
			lines = append(lines, l)
		}
	}
	return &s, lines, r
}

// executed lists the tasks a run executed (not cache hits), sorted.
func executed(s *wire.RunSummary) string {
	var out []string
	for _, row := range s.Tasks {
		if row.Cache != wire.CacheHit {
			out = append(out, row.TaskID)
		}
	}
	return strings.Join(out, " ")
}

func keyOf(s *wire.RunSummary, id string) string {
	for _, row := range s.Tasks {
		if row.TaskID == id {
			return row.Key
		}
	}
	return ""
}

// waitJournal waits until the daemon's journal has a token (it adds its
// watches after start).
func waitJournal(t *testing.T, d *vxd) {
	t.Helper()
	harness.WaitFor(t, 20*time.Second, "the change journal to be ready", func() bool {
		ans, code := askChanges(t, d, d.token, "")
		return code == http.StatusOK && ans.Epoch != ""
	})
}

func askChanges(t *testing.T, d *vxd, token, query string) (*wire.Changes, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, d.base()+wire.ChangesPath+query, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", wire.ChangesPath, err)
	}
	defer resp.Body.Close()
	var ans wire.Changes
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
			t.Fatalf("decoding %s: %v", wire.ChangesPath, err)
		}
	}
	return &ans, resp.StatusCode
}

// settle waits out the listing's racy window, so that the saved listing
// is kept and later runs can take it from the journal.
func settle() { time.Sleep(2100 * time.Millisecond) }

func wantJournal(t *testing.T, how string) {
	t.Helper()
	if !strings.HasPrefix(how, "journal:") {
		t.Fatalf("want the run to take unchanged files from vxd's journal; it went: %s", how)
	}
}

// TestJournalSeesEveryChange: with vxd up, a run takes unchanged files
// from the daemon's journal, and an edited, an added and a removed file,
// a new directory (with a file written into it at once) and a new
// directory tree are each seen by the next run, which re-runs exactly the
// package and its dependents.
func TestJournalSeesEveryChange(t *testing.T) {
	root := journalWorkspace(t)
	if s, _ := journalRun(t, root); executed(s) != "a#build b#build c#build" {
		t.Fatalf("first run executed %q", executed(s))
	}
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	if _, how := journalRun(t, root); !strings.HasPrefix(how, "stat every file") {
		t.Fatalf("the first run with vxd has no saved token and stats every file; it went: %s", how)
	}
	s, how := journalRun(t, root)
	wantJournal(t, how)
	if executed(s) != "" {
		t.Fatalf("a no-op run executed %q", executed(s))
	}
	if !strings.Contains(how, "9 files proven unchanged") {
		t.Fatalf("want every src file proven unchanged: %s", how)
	}
	steps := []struct {
		what   string
		change func()
		want   string
	}{
		{"an edited file", func() { harness.WriteFile(t, filepath.Join(root, "packages/b/src/f1.js"), "edited\n") }, "b#build c#build"},
		{"an added file", func() { harness.WriteFile(t, filepath.Join(root, "packages/a/src/new.js"), "new\n") }, "a#build b#build c#build"},
		{"a removed file", func() { mustRemove(t, filepath.Join(root, "packages/c/src/f0.js")) }, "c#build"},
		{"a new directory", func() { harness.WriteFile(t, filepath.Join(root, "packages/b/src/sub/x.js"), "x\n") }, "b#build c#build"},
		{"a new directory tree", func() { harness.WriteFile(t, filepath.Join(root, "packages/c/src/d1/d2/d3/y.js"), "y\n") }, "c#build"},
		{"an edit in the new tree", func() { harness.WriteFile(t, filepath.Join(root, "packages/c/src/d1/d2/d3/y.js"), "y2\n") }, "c#build"},
		// b's files are again those of its first edit: its key moves back
		// to one the cache holds (a hit), and c, whose files are new, runs.
		{"a removed directory", func() { mustRemove(t, filepath.Join(root, "packages/b/src/sub")) }, "c#build"},
	}
	prev := s
	for _, st := range steps {
		st.change()
		s, how := journalRun(t, root)
		wantJournal(t, how)
		if got := executed(s); got != st.want {
			t.Fatalf("after %s the run executed %q, want %q (%s)", st.what, got, st.want, how)
		}
		if keyOf(s, "b#build") == keyOf(prev, "b#build") && strings.Contains(st.what, "directory") && st.what != "a new directory tree" {
			t.Fatalf("after %s b#build's key did not move", st.what)
		}
		prev = s
		if s, _ := journalRun(t, root); executed(s) != "" {
			t.Fatalf("the run after %s's re-run executed %q", st.what, executed(s))
		}
	}
	// What the last runs built is what the files say.
	out, err := os.ReadFile(filepath.Join(root, "packages/c/dist/out.txt"))
	if err != nil || !strings.Contains(string(out), "y2") || strings.Contains(string(out), "c0") {
		t.Fatalf("packages/c/dist/out.txt = %q (%v): want y2 and no c0", out, err)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// TestJournalFallsBack: when the journal cannot prove its view — vxd
// restarted after an edit, more changes than its limit — the next run
// stats every file and still sees the edit; without a daemon vx stats
// every file and starts none.
func TestJournalFallsBack(t *testing.T) {
	root := journalWorkspace(t)
	journalRun(t, root)
	if r := run(t, root, vxdBin, "status"); r.Code == 0 {
		t.Fatalf("a vx run started a daemon\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(root, ".vx", "daemon", "vxd.json")); err == nil {
		t.Fatal("a vx run wrote a discovery file")
	}
	d := startDaemon(t, root)
	waitJournal(t, d)
	journalRun(t, root)
	if _, how := journalRun(t, root); !strings.HasPrefix(how, "journal:") {
		t.Fatalf("want the journal: %s", how)
	}

	// An edit while no daemon watches.
	stopDaemon(t, root)
	harness.WriteFile(t, filepath.Join(root, "packages/a/src/f2.js"), "while vxd was down\n")
	d = startDaemon(t, root)
	waitJournal(t, d)
	s, how := journalRun(t, root)
	if !strings.Contains(how, "new epoch") || executed(s) != "a#build b#build c#build" {
		t.Fatalf("after a restart: want a fallback that sees the edit; executed %q, went: %s", executed(s), how)
	}
	if _, how := journalRun(t, root); !strings.HasPrefix(how, "journal:") {
		t.Fatalf("the run after the fallback takes the journal again: %s", how)
	}

	// More changes than the journal keeps (a small limit for the test).
	stopDaemon(t, root)
	d = startDaemonEnv(t, root, "VXD_JOURNAL_LIMIT=5")
	waitJournal(t, d)
	journalRun(t, root)
	if _, how := journalRun(t, root); !strings.HasPrefix(how, "journal:") {
		t.Fatalf("want the journal: %s", how)
	}
	harness.WriteFile(t, filepath.Join(root, "packages/b/src/f0.js"), "edited among many\n")
	for i := 0; i < 10; i++ {
		harness.WriteFile(t, filepath.Join(root, "scratch", fmt.Sprintf("s%d", i)), "x")
	}
	s, how = journalRun(t, root)
	if !strings.Contains(how, "more than 5 paths changed") || executed(s) != "b#build c#build" {
		t.Fatalf("past the limit: want a fallback that sees the edit; executed %q, went: %s", executed(s), how)
	}
}

// startDaemonEnv is startDaemon with extra environment for vxd.
func startDaemonEnv(t *testing.T, root string, env ...string) *vxd {
	t.Helper()
	if r := harness.Run(t, root, append(baseEnv(), env...), vxdBin, "start"); r.Code != 0 {
		t.Fatalf("vxd start failed\n%s", r)
	}
	return startDaemon(t, root) // already running: reads its port and token
}

// TestJournalEndpoint: GET /changes wants the token, refuses a malformed
// token, and answers "cannot prove" for a token of another epoch.
func TestJournalEndpoint(t *testing.T) {
	root := journalWorkspace(t)
	d := startDaemon(t, root)
	waitJournal(t, d)
	if _, code := askChanges(t, d, "", ""); code != http.StatusUnauthorized {
		t.Fatalf("without the token: HTTP %d, want 401", code)
	}
	if _, code := askChanges(t, d, d.token, "?epoch=nothex!&seq=1"); code != http.StatusBadRequest {
		t.Fatalf("a malformed epoch: HTTP %d, want 400", code)
	}
	if _, code := askChanges(t, d, d.token, "?epoch=abcd&seq=minus"); code != http.StatusBadRequest {
		t.Fatalf("a malformed seq: HTTP %d, want 400", code)
	}
	cur, _ := askChanges(t, d, d.token, "")
	other, _ := askChanges(t, d, d.token, "?"+url.Values{"epoch": {"abcd"}, "seq": {"0"}}.Encode())
	if other.Complete || other.Epoch != cur.Epoch || other.Reason == "" {
		t.Fatalf("another epoch's token: %+v, want incomplete with a reason and the current epoch %s", other, cur.Epoch)
	}
	harness.WriteFile(t, filepath.Join(root, "packages/a/src/f0.js"), "changed\n")
	r := run(t, root, vxdBin, "status", "--json")
	var st wire.Status
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || !strings.HasPrefix(st.Journal, "watching ") {
		t.Fatalf("vxd status --json: want the journal watching (%v)\n%s", err, r)
	}
	since, _ := askChanges(t, d, d.token, fmt.Sprintf("?epoch=%s&seq=%d", cur.Epoch, cur.Seq))
	if !since.Complete || strings.Join(since.Changed, " ") != "packages/a/src/f0.js" {
		t.Fatalf("since the current token, after one edit: %+v", since)
	}
}

// TestJournalSeesWritesDuringARun: a file written while a run is under way
// (here by a task, into another package's inputs, after that package's key
// was computed) is seen by the next run: the token a run saves is the one
// it asked before looking at any file, not one of the run's end.
func TestJournalSeesWritesDuringARun(t *testing.T) {
	root := journalWorkspace(t)
	harness.WriteFile(t, filepath.Join(root, "packages/a/package.json"),
		`{"name": "a", "scripts": {"build": "mkdir -p dist && cat src/*.js > dist/out.txt && date +%s%N >> ../c/src/late.js"}}`)
	journalRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	if s, how := journalRun(t, root); executed(s) != "c#build" {
		// a's first run wrote late.js after c's key: c runs once more.
		t.Fatalf("want c#build to see late.js from a's first run; executed %q (%s)", executed(s), how)
	}
	if s, how := journalRun(t, root); executed(s) != "" || !strings.HasPrefix(how, "journal:") {
		t.Fatalf("a no-op with the journal: executed %q (%s)", executed(s), how)
	}
	harness.WriteFile(t, filepath.Join(root, "packages/a/src/f0.js"), "edited\n")
	if s, how := journalRun(t, root); executed(s) != "a#build b#build c#build" || !strings.HasPrefix(how, "journal:") {
		t.Fatalf("after editing a: executed %q (%s)", executed(s), how)
	}
	s, how := journalRun(t, root)
	if executed(s) != "c#build" || !strings.HasPrefix(how, "journal:") {
		t.Fatalf("a's run appended to c's late.js after c's key was computed: want c#build again, executed %q (%s)", executed(s), how)
	}
}

// TestJournalSeesIndexChanges: a git operation that changes only the index
// (outside the watched tree) still changes what the next run lists: a
// tracked file that .gitignore matches is an input until `git rm --cached`.
func TestJournalSeesIndexChanges(t *testing.T) {
	root := journalWorkspace(t)
	harness.WriteFile(t, filepath.Join(root, ".gitignore"), "dist/\n.vx/\nscratch/\n*.gen.js\n")
	harness.WriteFile(t, filepath.Join(root, "packages/a/src/x.gen.js"), "generated\n")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("add", "-f", ".gitignore", "packages/a/src/x.gen.js")
	git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "tracked though ignored")
	journalRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	journalRun(t, root)
	if s, how := journalRun(t, root); executed(s) != "" || !strings.HasPrefix(how, "journal:") {
		t.Fatalf("a no-op with the journal: executed %q (%s)", executed(s), how)
	}
	git("rm", "-q", "--cached", "packages/a/src/x.gen.js")
	if s, how := journalRun(t, root); executed(s) != "a#build b#build c#build" || !strings.HasPrefix(how, "journal:") {
		t.Fatalf("after git rm --cached of an ignored input: executed %q, want a, b and c (%s)", executed(s), how)
	}
}
