//go:build !windows

package platform_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// The dashboard in headless Chromium (tests/browser/platform.mjs):
// sign-in minting a session (the navigation hidden before it), the
// overview, a run's tasks and why its failed task failed, the trends
// chart, flaky tasks, the overview at 390 px, Admin → Tokens, sign-out.
func TestDashboardInChromium(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Join(filepath.Dir(file), "..", "browser")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	for _, need := range []string{filepath.Join(here, "node_modules", "playwright-core"), chromium} {
		if _, err := os.Stat(need); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing (.ci/run installs chromium and the npm packages of tests/browser)", need)
			}
			t.Skipf("skipping: %s is missing ((cd tests/browser && npm ci), Debian's chromium)", need)
		}
	}
	ts := seed(t)
	admin, _ := ts.p.token(t, "acme", "admin", "")
	// app#test's key k2 passed in a1 and fails here: flaky.
	zero, one := 0, 1
	r3 := &wire.PushRun{Workspace: "web", RunID: "a3a3a3a3a3a3", Command: "vx run test", StartedAt: T0.Add(2 * time.Hour), Status: "failed", ExitCode: &one,
		Totals: wire.RunTotals{Tasks: 1, Failed: 1}, Tasks: []wire.PushTask{task("app#test", "failed", "miss", "", k2, 40, &one)}}
	_ = zero
	// Why it failed, as vx pushes it: the masked excerpt and the location.
	r3.Tasks[0].Failure = &wire.PushFailure{Excerpt: "key ***\napp/src/x.ts(3,7): error TS2322: Type \"string\" is not assignable to type \"number\".\n",
		Locations: []wire.FailureLocation{{File: "apps/app/src/x.ts", Line: 3, Col: 7, Message: "TS2322: Type \"string\" is not assignable to type \"number\".", Tool: "tsc"}}}
	if res := push(t, ts.p.srv.URL, ts.acmeIngest, r3); res.status != http.StatusCreated {
		t.Fatalf("push: %d %s", res.status, res.body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "platform.mjs")
	cmd.Dir = here
	shots := t.ArtifactDir()
	cmd.Env = append(os.Environ(), "PLATFORM_URL="+ts.p.srv.URL, "ADMIN_TOKEN="+admin, "SHOTS="+shots, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser test: %v\n%s", err, out)
	}
	t.Logf("%s; screenshots in %s", strings.TrimSpace(string(out)), shots)
}
