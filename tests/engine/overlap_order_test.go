//go:build !windows

package engine_test

import (
	"path/filepath"
	"testing"
)

// TestOverlapStartsTheTaskOthersWaitFor: of two tasks that may write the
// same files, and so run one after the other, the one other tasks depend on
// starts first (create-t3-turbo: api#build before api#typecheck, which
// nothing waits for). Started the other way round, every dependent waits
// for both.
func TestOverlapStartsTheTaskOthersWaitFor(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "ws")
	span := func(name string) string {
		return "echo " + name + " start $(date +%s%N) >> ../spans.log; mkdir -p .cache; echo " + name + " > .cache/info.json; sleep 0.2; echo " + name + " end $(date +%s%N) >> ../spans.log"
	}
	writeFiles(t, ws, map[string]string{
		// check is listed (and so queued) before build: nothing in p
		// depends on anything, and q#check reaches p#build only later.
		"vx.workspace.json": `{ "projects": ["p", "q"], "tasks": {
			"build": { "outputs": [".cache/info.json"] },
			"check": { "dependsOn": ["^build"], "outputs": [".cache/info.json"] } } }`,
		"p/package.json": `{ "name": "p", "scripts": { "build": "` + span("build") + `", "check": "` + span("check") + `" } }`,
		"q/package.json": `{ "name": "q", "dependencies": { "p": "*" }, "scripts": { "check": "true" } }`,
	})
	runJSON(t, ws, nil, 0, "check", "--concurrency", "4")
	spans := readSpans(t, ws)
	if b, c := spans["build"], spans["check"]; b[0] > c[0] {
		t.Errorf("p#check started before p#build (build %v, check %v): q#check waited for both", b, c)
	}
}
