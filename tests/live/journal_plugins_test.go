//go:build !windows

package live_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// pluginJournalWorkspace is journalWorkspace with the reference plugin
// declared: packages/a's task ref is inferred from packages/a/vx-ref.json,
// packages/b's from a vx-ref.json that is a link to shared/b-ref.json.
func pluginJournalWorkspace(t *testing.T) string {
	t.Helper()
	root := journalWorkspace(t)
	plugin, err := os.ReadFile(filepath.Join(harness.ModuleRoot(), "examples", "plugins", "vx-plugin-reference.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(root, "tools", "ref.mjs"), string(plugin))
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], `+
		`"plugins": [{"plugin": "./tools/ref.mjs", "options": {"log": "scratch/starts.log"}}], `+
		`"tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**"], "outputs": ["dist/**"]}}}`)
	harness.WriteFile(t, filepath.Join(root, "packages", "a", "vx-ref.json"), refDecl("one"))
	harness.WriteFile(t, filepath.Join(root, "shared", "b-ref.json"), refDecl("uno"))
	if err := os.Symlink("../../shared/b-ref.json", filepath.Join(root, "packages", "b", "vx-ref.json")); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(root, "vx-ref.json"), refDecl("root"))
	harness.WriteFile(t, filepath.Join(root, "scratch", "keep"), "")
	gitCommitAll(t, root)
	return root
}

// refDecl is a vx-ref.json whose task writes word to dist/ref.txt.
func refDecl(word string) string {
	return fmt.Sprintf(`{"command": "mkdir -p dist && echo %s > dist/ref.txt", "outputs": ["dist/**"]}`, word)
}

// refRun is `vx run ref` in an environment of its own (never a repeat of
// an earlier run); it answers what each project's dist/ref.txt holds after
// it and how the run took its files.
func refRun(t *testing.T, root string) (a, b, how string, s *wire.RunSummary) {
	t.Helper()
	env := append(append(baseEnv(), "VX_LOG=debug"), fmt.Sprintf("VX_TEST_JOURNAL_RUN=%d", journalRuns.Add(1)))
	r := harness.Run(t, root, env, vxBin, "run", "ref", "--format", "json")
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	s = &wire.RunSummary{}
	if err := json.Unmarshal([]byte(r.Stdout), s); err != nil {
		t.Fatalf("no summary: %v\n%s", err, r)
	}
	for _, line := range strings.Split(r.Stderr, "\n") {
		var l debugLine
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "change journal" {
			how = l.Files
		}
	}
	read := func(p string) string {
		out, _ := os.ReadFile(filepath.Join(root, "packages", p, "dist", "ref.txt"))
		return strings.TrimSpace(string(out))
	}
	return read("a"), read("b"), how, s
}

// pluginStarts is how many times the plugin was asked for its tasks.
func pluginStarts(t *testing.T, root string) int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(root, "scratch", "starts.log"))
	return strings.Count(string(b), "tasks\n")
}

// TestJournalPluginSeesEditedMatchedFiles: with vxd up, a run whose
// journal proves the plugin's matched files unchanged reuses the stored
// tasks without asking the plugin, and a matched file edited in place
// (same size), the target of a matched link edited, or a matched file at
// the root (of no project) edited, is seen by the very next run: the
// plugin is asked again, the task runs the new command and leaves its
// output, and undoing the edit brings back the first output.
func TestJournalPluginSeesEditedMatchedFiles(t *testing.T) {
	root := pluginJournalWorkspace(t)
	d := startDaemon(t, root)
	waitJournal(t, d)
	if a, b, _, s := refRun(t, root); a != "one" || b != "uno" {
		t.Fatalf("first run: a %q b %q (%s)", a, b, executed(s))
	}
	settle()
	refRun(t, root)
	a, b, how, s := refRun(t, root)
	wantJournal(t, how)
	if a != "one" || b != "uno" || executed(s) != "" {
		t.Fatalf("an unchanged run: a %q b %q executed %q", a, b, executed(s))
	}
	steps := []struct{ file, text, a, b string }{
		{"packages/a/vx-ref.json", refDecl("two"), "two", "uno"},
		{"shared/b-ref.json", refDecl("dos"), "two", "dos"},
		{"vx-ref.json", refDecl("ROOT"), "two", "dos"},
		{"packages/a/vx-ref.json", refDecl("one"), "one", "dos"},
		{"shared/b-ref.json", refDecl("uno"), "one", "uno"},
	}
	for _, st := range steps {
		asked := pluginStarts(t, root)
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(st.file)), st.text)
		a, b, how, s := refRun(t, root)
		if a != st.a || b != st.b || pluginStarts(t, root) == asked {
			t.Fatalf("after %s was written: a %q b %q, want %q %q; plugin asked %d times (executed %q; %s)",
				st.file, a, b, st.a, st.b, pluginStarts(t, root)-asked, executed(s), how)
		}
		// vxd's own load after the edit asks the plugin too: the count
		// is taken once it is done.
		settle()
		asked = pluginStarts(t, root)
		a, b, how, s = refRun(t, root)
		wantJournal(t, how)
		if a != st.a || b != st.b || executed(s) != "" || pluginStarts(t, root) != asked {
			t.Fatalf("the run after that: a %q b %q executed %q; plugin asked %d times", a, b, executed(s), pluginStarts(t, root)-asked)
		}
	}
}

// TestJournalPluginSeesAMatchedFileEditedAwayFromItsDir: with vxd up, a
// project's directory moved out of the workspace, its matched file edited
// there, and the directory moved back is seen by the next run: the
// journal's proof of the file by its path must not outlive the move; nor
// may it outlive the file replaced by a link to another.
func TestJournalPluginSeesAMatchedFileEditedAwayFromItsDir(t *testing.T) {
	root := pluginJournalWorkspace(t)
	d := startDaemon(t, root)
	waitJournal(t, d)
	refRun(t, root)
	settle()
	refRun(t, root)
	if a, _, how, s := refRun(t, root); a != "one" || executed(s) != "" {
		t.Fatalf("an unchanged run: a %q executed %q (%s)", a, executed(s), how)
	}
	away := filepath.Join(harness.TempRoot(t), "away")
	dir := filepath.Join(root, "packages", "a")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(away, "vx-ref.json"), refDecl("two"))
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	if a, _, how, s := refRun(t, root); a != "two" {
		t.Fatalf("after packages/a was moved away, its vx-ref.json edited and moved back: a %q (executed %q; %s)", a, executed(s), how)
	}
	settle()
	if a, _, how, s := refRun(t, root); a != "two" || executed(s) != "" {
		t.Fatalf("the run after that: a %q executed %q (%s)", a, executed(s), how)
	}
	// The file replaced by a link to another declaration.
	mustRemove(t, filepath.Join(dir, "vx-ref.json"))
	if err := os.Symlink("../../shared/b-ref.json", filepath.Join(dir, "vx-ref.json")); err != nil {
		t.Fatal(err)
	}
	if a, _, how, s := refRun(t, root); a != "uno" {
		t.Fatalf("after packages/a/vx-ref.json became a link: a %q (executed %q; %s)", a, executed(s), how)
	}
}
