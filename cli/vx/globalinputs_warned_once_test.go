package vx

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// TestGlobalInputMatchingNothingWarnedOnce: a globalInputs glob that
// matches no file is said on the terminal by the first run, not by every
// run after it (trpc's turbo.json names .eslintrc.config.js, which the
// repository does not have, and every warm run of vx repeated it while
// turbo said nothing); it is said again when the globs change. Every
// run's JSON summary still lists it among its warnings.
func TestGlobalInputMatchingNothingWarnedOnce(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":   `{"projects": ["pkgs/*"], "globalInputs": ["missing.txt"], "tasks": {"build": {"command": "echo built"}}}`,
		"pkgs/a/package.json": `{"name": "a"}`,
	})
	const warning = `globalInputs "missing.txt" matches no file`
	said := func(label string) bool {
		t.Helper()
		code, out, errs := runWithStdin(root, "", "run", "build", "--ui", "stream")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s%s", label, code, out, errs)
		}
		return strings.Contains(out+errs, warning)
	}
	if !said("first run") {
		t.Fatalf("the first run did not say %q", warning)
	}
	if said("second run") {
		t.Errorf("the second run said %q again", warning)
	}
	code, out, errs := runWithStdin(root, "", "run", "build", "--format", "json")
	var sum wire.RunSummary
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errs)
	}
	if !strings.Contains(strings.Join(sum.Warnings, "\n"), warning) {
		t.Errorf("the JSON summary's warnings %q lack %q", sum.Warnings, warning)
	}
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects": ["pkgs/*"], "globalInputs": ["missing.txt", "other.txt"], "tasks": {"build": {"command": "echo built"}}}`,
	})
	if !said("run after the globs changed") {
		t.Errorf("the run after globalInputs changed did not say %q", warning)
	}
}
