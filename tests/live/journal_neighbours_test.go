//go:build !windows

package live_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// neighbourWorkspace is a committed git workspace of two packages, b
// depending on a, whose build takes its own src/**, its dependencies'
// src/** (^) and the workspace's shared/** (/), and depends on the root
// task //#check, which takes tools/**. Every file name has neighbours
// that sort next to it ('/', '-', '.', '0'), differ in case or unicode
// normalisation, or sit under a directory longer than 512 bytes.
func neighbourWorkspace(t *testing.T) (string, map[string]string) {
	t.Helper()
	root := filepath.Join(harness.TempRoot(t), "ws")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {`+
		`"build": {"dependsOn": ["^build", "//#check"], "inputs": ["src/**", "^src/**", "/shared/**"], "outputs": ["dist/**"]},`+
		`"//#check": {"command": "true", "inputs": ["tools/**"]}}}`)
	harness.WriteFile(t, filepath.Join(root, ".gitignore"), "dist/\n.vx/\n")
	long := strings.Repeat("l", 200) + "/" + strings.Repeat("m", 200) + "/" + strings.Repeat("n", 150)
	names := []string{"wy", "w-y", "w.y", "w0", "w/y", "w/y-z", "w/y.z", "W", "\u00e9", "e\u0301", long + "/f", long + "-f"}
	owners := map[string]string{} // file → the tasks an edit of it re-runs
	for _, n := range names {
		owners["packages/a/src/"+n] = "a#build b#build"
		owners["packages/b/src/"+n] = "b#build"
	}
	for _, n := range []string{"s0", "s-t", "s.t", "s/t", "s/t.u"} {
		owners["shared/"+n] = "a#build b#build"
		owners["tools/"+n] = "//#check a#build b#build"
	}
	deps := map[string]string{"a": "", "b": `"a": "*"`}
	for name, dep := range deps {
		harness.WriteFile(t, filepath.Join(root, "packages", name, "package.json"), fmt.Sprintf(`{"name": %q, "dependencies": {%s}, `+
			`"scripts": {"build": "mkdir -p dist && find src -type f | sort | xargs cat > dist/out.txt"}}`, name, dep))
	}
	for f := range owners {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(f)), "first "+f+"\n")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() { stopDaemon(t, root) })
	return root, owners
}

// executedSorted is executed, sorted.
func executedSorted(s *wire.RunSummary) string {
	got := strings.Fields(executed(s))
	slices.Sort(got)
	return strings.Join(got, " ")
}

// journalHow is the "change journal" line of a run's debug log.
func journalHow(lines []debugLine) string {
	for _, l := range lines {
		if l.Message == "change journal" {
			return l.Files
		}
	}
	return ""
}

// TestJournalSeesAnEditAmongNeighbours: with vxd up, an edit of any one
// file whose name sorts next to others, in a project's, a dependency's
// (^), a workspace (/) or a root task's inputs, re-runs exactly the tasks
// that take it, each run taking the other files from the journal, also
// when a run of a alone came between the edit and the run of all; after
// vxd stops, an edit is still seen.
func TestJournalSeesAnEditAmongNeighbours(t *testing.T) {
	root, owners := neighbourWorkspace(t)
	journalRun(t, root)
	settle()
	d := startDaemon(t, root)
	waitJournal(t, d)
	journalRun(t, root)
	if s, how := journalRun(t, root); executed(s) != "" {
		t.Fatalf("a no-op run executed %q (%s)", executed(s), how)
	}
	files := make([]string, 0, len(owners))
	for f := range owners {
		files = append(files, f)
	}
	slices.Sort(files)
	for i, f := range files {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(f)), fmt.Sprintf("edit %d of %s\n", i, f))
		want := owners[f]
		if i%2 == 0 {
			// A run of a alone reads no file of b's: the next run must
			// still see an edit there.
			s, lines, _ := debugRun(t, root, []string{fmt.Sprintf("VX_TEST_JOURNAL_RUN=%d", journalRuns.Add(1))}, "--filter", "a")
			wantJournal(t, journalHow(lines))
			first := strings.TrimSpace(strings.ReplaceAll(want+" ", "b#build ", ""))
			if got := executedSorted(s); got != first {
				t.Fatalf("after editing %s the run of a executed %q, want %q", f, got, first)
			}
			want = ""
			if strings.Contains(owners[f], "b#build") {
				want = "b#build"
			}
		}
		s, how := journalRun(t, root)
		wantJournal(t, how)
		if got := executedSorted(s); got != want {
			t.Fatalf("after editing %s the run executed %q, want %q (%s)", f, got, want, how)
		}
		if s, how := journalRun(t, root); executed(s) != "" {
			t.Fatalf("the run after %s's re-run executed %q (%s)", f, executed(s), how)
		}
	}
	stopDaemon(t, root)
	f := files[len(files)/2]
	harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(f)), "edited while vxd is down\n")
	if s, _ := journalRun(t, root); executedSorted(s) != owners[f] {
		t.Fatalf("without vxd, after editing %s the run executed %q, want %q", f, executedSorted(s), owners[f])
	}
}
