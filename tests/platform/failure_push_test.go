//go:build !windows

package platform_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/pgtest"
)

// A real vx run whose task fails like tsc pushes why: get_run answers the
// task's excerpt (its secret masked) and its file:line, relative to the
// workspace, not only "exited with code 2"; its colour codes are dropped
// (and a secret they split is masked). The output holds a NUL byte,
// which PostgreSQL refuses in text and JSONB: the run is still stored.
func TestFailureReachesThePlatform(t *testing.T) {
	vx, srv, ingestTok, readTok := servedOrg(t)
	ws := harness.TempRoot(t)
	const secret = "s3cr3t-push-value"
	harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), fmt.Sprintf(`{"projects": ["packages/*"],
		"tasks": {"build": {"inputs": ["src/**"], "exec": {"env": {"API_KEY": {"secret": true}}}}},
		"platform": {"url": %q, "workspace": "demo"}}`, srv.base))
	harness.WriteFile(t, filepath.Join(ws, "packages/app/src/main.ts"), "export const x: number = 1;\n")
	harness.WriteFile(t, filepath.Join(ws, "packages/app/package.json"), `{"name": "app", "scripts": {"build": `+
		`"echo \"key $API_KEY\"; printf 'split s3cr3t\\033[31m-push-value\\033[0m\\n'; printf 'binary \\000 byte\\n'; `+
		`echo 'src/main.ts(3,7): error TS2322: Type string is not assignable to type number.'; exit 2"}}`)
	env := append(harness.Env("CI", "VX_LOG", "VX_PLATFORM_URL", "VX_PLATFORM_WORKSPACE", "VX_PLATFORM_TOKEN"), "VX_PLATFORM_TOKEN="+ingestTok, "API_KEY="+secret)
	r := harness.Run(t, ws, env, vx, "run", "build", "--format", "json")
	if r.Code == 0 {
		t.Fatalf("the build should fail: %s", r)
	}
	got := call(t, srv.base, readTok, "get_run", map[string]any{"runId": runID(t, r)}).Struct
	task := get(t, got, "tasks", 0).(map[string]any)
	f, ok := task["failure"].(map[string]any)
	if !ok {
		t.Fatalf("get_run has no failure for the failed task: %v", task)
	}
	excerpt, _ := f["excerpt"].(string)
	// The secret printed split by a colour code is masked too: the
	// excerpt is text, the codes are dropped, and what they joined is masked.
	if !strings.Contains(excerpt, "error TS2322") || !strings.Contains(excerpt, "key ***") || !strings.Contains(excerpt, "split ***\n") ||
		strings.Contains(fmt.Sprint(got), secret) || strings.Contains(excerpt, "\x1b") {
		t.Fatalf("failure excerpt %q: want the error, the secret masked, no colour codes", excerpt)
	}
	if loc := get(t, f, "locations", 0).(map[string]any); loc["file"] != "packages/app/src/main.ts" || loc["line"] != float64(3) || loc["col"] != float64(7) {
		t.Fatalf("failure location: %v", loc)
	}
}

// A failed task that printed bytes that are not UTF-8 (a binary, a
// test's garbage) is still pushed with its failure: vx sends each
// invalid byte as U+FFFD, three bytes on the wire, so the excerpt and
// the locations must be within the platform's bounds as sent, or the
// platform refuses the whole run (400) and it is lost.
func TestFailureWithBinaryOutputReachesThePlatform(t *testing.T) {
	vx, srv, ingestTok, readTok := servedOrg(t)
	ws := harness.TempRoot(t)
	harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), fmt.Sprintf(`{"projects": ["packages/*"],
		"tasks": {"build": {"inputs": ["src/**"]}},
		"platform": {"url": %q, "workspace": "demo"}}`, srv.base))
	harness.WriteFile(t, filepath.Join(ws, "packages/app/src/main.ts"), "export const x = 1;\n")
	// 12 KB of 0xff, then a location whose file name is 900 bytes of 0xfe.
	harness.WriteFile(t, filepath.Join(ws, "packages/app/build.sh"), `head -c 12000 /dev/zero | tr '\000' '\377'
printf 'src/'; head -c 900 /dev/zero | tr '\000' '\376'; echo '.ts(3,7): error TS2322: bad'
exit 2
`)
	harness.WriteFile(t, filepath.Join(ws, "packages/app/package.json"), `{"name": "app", "scripts": {"build": "sh build.sh"}}`)
	env := append(harness.Env("CI", "VX_LOG", "VX_PLATFORM_URL", "VX_PLATFORM_WORKSPACE", "VX_PLATFORM_TOKEN"), "VX_PLATFORM_TOKEN="+ingestTok)
	r := harness.Run(t, ws, env, vx, "run", "build", "--format", "json")
	if r.Code == 0 {
		t.Fatalf("the build should fail: %s", r)
	}
	got := call(t, srv.base, readTok, "get_run", map[string]any{"runId": runID(t, r)}).Struct
	if got["found"] != true {
		t.Fatalf("the run with binary output was not stored: get_run %v; vx said …%s", got, r.Stderr[max(0, len(r.Stderr)-300):])
	}
	task := get(t, got, "tasks", 0).(map[string]any)
	f, ok := task["failure"].(map[string]any)
	if !ok {
		t.Fatalf("get_run has no failure for the failed task: %v", task)
	}
	if excerpt, _ := f["excerpt"].(string); !strings.Contains(excerpt, "error TS2322") {
		t.Fatalf("failure excerpt %q: want the error", excerpt)
	}
}

// servedOrg is a migrated platform on a private PostgreSQL with one org
// (acme), serving, and an ingest and a read token of that org.
func servedOrg(t *testing.T) (vx string, srv *serveProc, ingestTok, readTok string) {
	vx, platform := binaries(t)
	db := pgtest.URL(t)
	for _, args := range [][]string{{"migrate"}, {"org", "create", "acme"}} {
		if r := runCLI(t, platform, db, args...); r.Code != 0 {
			t.Fatal(r)
		}
	}
	tok := func(scope string) string {
		r := runCLI(t, platform, db, "token", "create", "--org", "acme", "--scope", scope, "--name", "t-"+scope)
		return strings.TrimSpace(r.Stdout)
	}
	return vx, startServe(t, platform, db), tok("ingest"), tok("read")
}
