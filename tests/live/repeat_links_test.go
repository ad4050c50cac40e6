//go:build !windows

package live_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// linkedWorkspace is a workspace whose project a hard-links its output
// to a path outside the workspace, where vxd's journal does not see a
// write through that link. It answers the root and that outside
// directory.
func linkedWorkspace(t *testing.T) (string, string) {
	t.Helper()
	tmp := harness.TempRoot(t)
	root, outside := filepath.Join(tmp, "ws"), filepath.Join(tmp, "outside")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {"build": {"inputs": ["src/**"], "outputs": ["dist/**"]}}}`)
	harness.WriteFile(t, filepath.Join(root, ".gitignore"), "dist/\n.vx/\n")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(outside, "a-out.txt")
	harness.WriteFile(t, filepath.Join(root, "packages/a/package.json"),
		fmt.Sprintf(`{"name": "a", "scripts": {"build": "mkdir -p dist && cat src/f.js > dist/out.txt && ln -f dist/out.txt %s && echo built a"}}`, link))
	harness.WriteFile(t, filepath.Join(root, "packages/a/src/f.js"), "export const a = 1;\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() { stopDaemon(t, root) })
	return root, outside
}

// writeExt writes the linked project's package.json, its build printing
// and writing word.
func writeExt(t *testing.T, outside, word string) {
	t.Helper()
	harness.WriteFile(t, filepath.Join(outside, "ext/package.json"), fmt.Sprintf(`{"name": "ext", "scripts": {"build": "mkdir -p dist && echo ext %s > dist/out.txt && echo ext %s"}}`, word, word))
}

// settleNoOps waits out the listing's racy window and runs the no-op
// runs after which a memo would be left (settleRepeat), each an ordinary
// one or a repeat.
func settleNoOps(t *testing.T, root string) {
	t.Helper()
	settle()
	for i := 0; i < 3; i++ {
		if s, why := repeatRun(t, root, nil); executed(s) != "" {
			t.Fatalf("a no-op run executed %q (%s)", executed(s), why)
		}
	}
}

// TestRepeatSeesPastLinks: what vxd's journal cannot see — an output
// written through a hard link outside the workspace, a project (its
// package.json and its outputs) behind a symbolic link to a directory
// outside — still ends the repeat: the next run is the ordinary one,
// which restores the output or runs the changed command.
func TestRepeatSeesPastLinks(t *testing.T) {
	root, outside := linkedWorkspace(t)
	if s, _ := repeatRun(t, root, nil); executed(s) != "a#build" {
		t.Fatalf("the first run executed %q", executed(s))
	}
	settle()
	waitJournal(t, startDaemon(t, root))
	wantNoRepeat(t, root, "vxd's start", "", nil)
	settleRepeat(t, root)

	// An output tampered with through its other link.
	if err := os.WriteFile(filepath.Join(outside, "a-out.txt"), []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantNoRepeat(t, root, "an output written through its other link", "", nil)
	if b, _ := os.ReadFile(filepath.Join(root, "packages/a/dist/out.txt")); !strings.Contains(string(b), "export const a") {
		t.Fatalf("packages/a/dist/out.txt = %q: want it restored", b)
	}

	// A link the project globs match, to a directory with no project
	// yet, and then a project made there.
	if err := os.MkdirAll(filepath.Join(outside, "later"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "later"), filepath.Join(root, "packages/later")); err != nil {
		t.Fatal(err)
	}
	settleNoOps(t, root)
	harness.WriteFile(t, filepath.Join(outside, "later/package.json"), `{"name": "later", "scripts": {"build": "mkdir -p dist && echo later > dist/out.txt"}}`)
	wantNoRepeat(t, root, "a project made behind a link", "later#build", nil)

	// A project behind a symbolic link to a directory outside.
	writeExt(t, outside, "one")
	if err := os.Symlink(filepath.Join(outside, "ext"), filepath.Join(root, "packages/ext")); err != nil {
		t.Fatal(err)
	}
	wantNoRepeat(t, root, "a linked project", "ext#build", nil)
	settleNoOps(t, root)
	// Its output, tampered with where it lives.
	if err := os.WriteFile(filepath.Join(outside, "ext/dist/out.txt"), []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantNoRepeat(t, root, "an output behind a linked directory", "", nil)
	if b, _ := os.ReadFile(filepath.Join(outside, "ext/dist/out.txt")); string(b) != "ext one\n" {
		t.Fatalf("ext/dist/out.txt = %q: want it restored", b)
	}
	settleNoOps(t, root)
	// Its command, changed where its package.json lives.
	writeExt(t, outside, "two")
	wantNoRepeat(t, root, "a linked project's package.json edited", "ext#build", nil)
}

// TestRepeatSeesAnUnwatchedInput: an input the listing holds but no
// watch reports (a file named node_modules) ends the repeat, and the
// ordinary run after reads it again rather than take the journal's
// "nothing changed" for it.
func TestRepeatSeesAnUnwatchedInput(t *testing.T) {
	root := journalWorkspace(t)
	input := filepath.Join(root, "packages/a/src/node_modules")
	harness.WriteFile(t, input, "old\n")
	repeatRun(t, root, nil)
	settle()
	waitJournal(t, startDaemon(t, root))
	wantNoRepeat(t, root, "vxd's start", "", nil)
	settleRepeat(t, root)
	harness.WriteFile(t, input, "new content\n")
	wantNoRepeat(t, root, "an edited input no watch reports", "a#build b#build c#build", nil)
}

// TestRepeatThroughALinkedRoot: a workspace entered through a symbolic
// link (the shell's PWD is the link's path, and so are vx's and vxd's
// root) is watched as the tree the link names: an edited and an added
// input each end the repeat.
func TestRepeatThroughALinkedRoot(t *testing.T) {
	real := journalWorkspace(t)
	root := real + "-link"
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	pwd := "PWD=" + root
	t.Cleanup(func() { harness.Run(t, root, append(baseEnv(), pwd), vxdBin, "stop") })
	repeatRun(t, root, []string{pwd})
	settle()
	env := append(baseEnv(), pwd)
	if r := harness.Run(t, root, env, vxdBin, "start"); r.Code != 0 {
		t.Fatalf("vxd start\n%s", r)
	}
	st, tok := harness.Run(t, root, env, vxdBin, "status", "--json"), harness.Run(t, root, env, vxdBin, "token")
	var status wire.Status
	if err := json.Unmarshal([]byte(st.Stdout), &status); err != nil || status.Port == 0 || status.Workspace != root {
		t.Fatalf("vxd status --json: want it serving %s (%v)\n%s", root, err, st)
	}
	daemonPIDs.Store(status.PID, root)
	waitJournal(t, &vxd{root: root, port: status.Port, token: strings.TrimSpace(tok.Stdout)})
	wantNoRepeat(t, root, "vxd's start", "", []string{pwd})
	settleRepeat(t, root, pwd)
	harness.WriteFile(t, filepath.Join(root, "packages/b/src/f1.js"), "edited\n")
	wantNoRepeat(t, root, "an edited input", "b#build c#build", []string{pwd})
	settleRepeat(t, root, pwd)
	harness.WriteFile(t, filepath.Join(root, "packages/a/src/new.js"), "new\n")
	wantNoRepeat(t, root, "an added input", "a#build b#build c#build", []string{pwd})
}
