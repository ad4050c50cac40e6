//go:build !windows

package engine_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReportModeCachesAndSummarisesViolations: a report-mode sandbox is for
// learning. A task that writes outside its outputs (eslint --cache writing
// .eslintcache) is cached as without a sandbox, the run ends with one line
// about it instead of every violation, and vx last --violations (and its
// --format json) lists what each task did.
func TestReportModeCachesAndSummarisesViolations(t *testing.T) {
	t.Parallel()
	ws := sandboxWorkspace(t, `{
		"lint":  { "outputs": ["dist/**"], "sandbox": { "mode": "report" }, "command": "mkdir -p dist && echo ok > dist/out && echo c > .eslintcache" },
		"stray": { "sandbox": { "mode": "report" }, "command": "echo x > stray.txt" },
		"clean": { "sandbox": { "mode": "report" }, "command": "true" }
	}`)
	// Both files are ignored, as an eslint cache is: not inputs.
	writeFiles(t, ws, map[string]string{".gitignore": ".vx/\n.eslintcache\nstray.txt\n"})
	cold := vxOK(t, ws, nil, "run", "lint", "stray", "clean")
	out := cold.Stdout + cold.Stderr
	want := "Sandbox (report): 2 tasks wrote or connected outside their declaration; vx last --violations shows them"
	if strings.Count(out, want) != 1 {
		t.Errorf("want the one summary line %q\n%s", want, cold)
	}
	if strings.Contains(out, ".eslintcache") || strings.Contains(out, "not cached") {
		t.Errorf("report mode printed each violation or refused the cache\n%s", cold)
	}

	var last struct {
		Found bool                `json:"found"`
		Note  string              `json:"note"`
		Run   struct{ ID string } `json:"run"`
		Tasks []sbRow             `json:"tasks"`
	}
	answerJSON(t, ws, &last, "last", "--violations")
	if len(last.Tasks) != 2 || last.Tasks[0].TaskID == "app#clean" || last.Tasks[1].TaskID == "app#clean" {
		t.Fatalf("vx last --violations --format json: want app#lint and app#stray, got %+v", last.Tasks)
	}
	for _, row := range last.Tasks {
		if len(row.Violations) != 1 || row.Violations[0].Denied {
			t.Errorf("%s violations = %+v, want one, not denied", row.TaskID, row.Violations)
		}
	}
	text := vxOK(t, ws, nil, "last", "--violations")
	for _, w := range []string{"app#lint", "reported create " + filepath.Join(ws, "app", ".eslintcache"), "app#stray"} {
		if !strings.Contains(text.Stdout, w) {
			t.Errorf("vx last --violations lacks %q\n%s", w, text)
		}
	}
	if strings.Contains(text.Stdout, "app#clean") {
		t.Errorf("vx last --violations lists a task without violations\n%s", text)
	}

	warm, _ := runJSON(t, ws, nil, 0, "lint", "stray", "clean")
	for _, id := range []string{"app#lint", "app#stray", "app#clean"} {
		if row := warm.row(t, id); row.Cache != "hit" {
			t.Errorf("%s: cache %s on the second run, want hit: report mode must not change what is cached", id, row.Cache)
		}
	}
	coldID := last.Run.ID
	answerJSON(t, ws, &last, "last", "--violations")
	if !last.Found || len(last.Tasks) != 0 || last.Note == "" {
		t.Errorf("the fully cached run: want no task and a note, got %+v", last)
	}
	answerJSON(t, ws, &last, "last", "--violations", "--run", coldID)
	if len(last.Tasks) != 2 {
		t.Errorf("vx last --violations --run %s: %+v", coldID, last.Tasks)
	}
	if r := vx(t, ws, nil, "last", "--violations", "--list"); r.Code != 2 || !strings.Contains(r.Stderr, "--violations") {
		t.Errorf("vx last --violations --list: want a usage error, not a run list\n%s", r)
	}
}

// TestReportModeKeepsTheCache: turning a report-mode sandbox on or off, or
// changing what it allows, moves no key: a user who tries report mode keeps
// every cached result, and one whose violations are recorded can compare
// with the run before. Enforce mode keys what it confined: what was denied
// shaped the result, and a hit from an unconfined run must not stand for a
// confined one.
func TestReportModeKeepsTheCache(t *testing.T) {
	t.Parallel()
	const build = `"command": "mkdir -p dist && echo ok > dist/out", "outputs": ["dist/**"]`
	ws := sandboxWorkspace(t, `{ "build": { `+build+` } }`)
	declare := func(sandbox string) {
		t.Helper()
		tasks := `{ "build": { ` + build + ` } }`
		if sandbox != "" {
			tasks = `{ "build": { ` + build + `, "sandbox": ` + sandbox + ` } }`
		}
		writeFiles(t, ws, map[string]string{"vx.workspace.json": `{ "projects": ["app"], "tasks": ` + tasks + ` }`})
	}
	plain, _ := runJSON(t, ws, nil, 0, "build")
	cold := plain.row(t, "app#build")
	for _, sb := range []string{`{ "mode": "report" }`, `{ "mode": "report", "network": false, "write": ["tmp/**"] }`, ""} {
		declare(sb)
		warm, _ := runJSON(t, ws, nil, 0, "build")
		if row := warm.row(t, "app#build"); row.Cache != "hit" || row.Key != cold.Key {
			t.Errorf("sandbox %s: cache %s, key %s; want a hit on the key without a sandbox, %s", sb, row.Cache, row.Key, cold.Key)
		}
	}
	keyOf := func(sb string) string {
		t.Helper()
		declare(sb)
		var plan struct {
			Tasks []struct{ TaskID, Key string } `json:"tasks"`
		}
		decodeOnly(t, vxOK(t, ws, nil, "run", "build", "--dry=json"), &plan)
		if len(plan.Tasks) != 1 {
			t.Fatalf("plan: %+v", plan.Tasks)
		}
		return plan.Tasks[0].Key
	}
	enforce, offline := keyOf(`{ "mode": "enforce" }`), keyOf(`{ "mode": "enforce", "network": false }`)
	wider := keyOf(`{ "mode": "enforce", "write": ["tmp/**"] }`)
	if enforce == cold.Key || offline == enforce || wider == enforce {
		t.Errorf("enforce keys: plain %s, enforce %s, without network %s, with a write glob %s: each must differ", cold.Key, enforce, offline, wider)
	}
}
