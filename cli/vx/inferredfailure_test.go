package vx

import (
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// failingInferencePlugin infers, for the project a, a test task that
// fails, from pkgs/a/t.cfg.
const failingInferencePlugin = `import { readFileSync } from "node:fs";
const req = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(req.stage === "describe"
  ? {protocol: 1, name: "fake", version: "1", stages: ["tasks"], globs: ["**/t.cfg"]}
  : {protocol: 1, tasks: [{project: "a", name: "test", file: "pkgs/a/t.cfg", command: "exit 3"}]}));
`

// TestFailedInferredTaskNamesItsPlugin: a run's closing list of failed
// tasks names, for a task nobody wrote, the plugin and the file it was
// inferred from, with the command that shows its definition. On trpc
// every package got a test task from its vitest.config.ts and all eight
// failed; the footer said "exited with code 1" and nothing of where a
// task no package.json or vx.workspace.json mentions came from. A task
// written by hand is listed as before.
func TestFailedInferredTaskNamesItsPlugin(t *testing.T) {
	needNode(t)
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":   `{"projects": ["pkgs/*"], "plugins": ["./tools/fake.mjs"], "tasks": {"build": {"command": "exit 4"}}}`,
		"tools/fake.mjs":      failingInferencePlugin,
		"pkgs/a/package.json": `{"name": "a"}`,
		"pkgs/a/t.cfg":        "",
	})
	code, out, errs := runWithStdin(root, "", "run", "test", "build", "--continue", "--ui", "stream")
	if code == 0 {
		t.Fatalf("exit 0; want the two failures\n%s%s", out, errs)
	}
	footer := out[strings.LastIndex(out, " Tasks: "):]
	want := " failed  a#test: exited with code 3 (inferred by plugin fake from pkgs/a/t.cfg: vx show a#test)\n"
	if !strings.Contains(footer, want) {
		t.Errorf("footer lacks %q:\n%s", want, footer)
	}
	if want := " failed  a#build: exited with code 4\n"; !strings.Contains(footer, want) {
		t.Errorf("footer lacks %q:\n%s", want, footer)
	}
}
