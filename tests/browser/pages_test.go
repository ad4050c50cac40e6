package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// failingSecret is what the failing task prints of its secret: the page
// must show it masked.
const failingSecret = "s3cr3t-pages-value"

// writeFailingWorkspace writes 12 packages, each with a build and a test
// that take a moment (24 tasks, run in parallel); p07#test fails like tsc,
// naming src/index.ts:3:7, and prints its secret.
func writeFailingWorkspace(t *testing.T, ws string) {
	harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), `{
  "projects": ["packages/*"],
  "tasks": {
    "build": { "inputs": ["src/**"], "outputs": ["dist/**"] },
    "test": { "dependsOn": ["build"], "inputs": ["src/**"], "exec": { "env": { "API_KEY": { "secret": true } } } }
  }
}`)
	for i := 1; i <= 12; i++ {
		name := fmt.Sprintf("p%02d", i)
		test := "sleep 0.4; echo ok"
		if i == 7 {
			test = `sleep 0.4; echo \"key $API_KEY\"; echo 'src/index.ts(3,7): error TS2322: Type \"string\" is not assignable to type \"number\".'; exit 2`
		}
		harness.WriteFile(t, filepath.Join(ws, "packages", name, "src", "index.ts"), "export const x: number = 1;\n")
		harness.WriteFile(t, filepath.Join(ws, "packages", name, "package.json"), fmt.Sprintf(
			`{ "name": "%s", "scripts": { "build": "sleep 0.6; mkdir -p dist; cp src/index.ts dist/", "test": "%s" } }`, name, test))
	}
}

// TestStatusPageSaysWhy drives vxd's page at 390 px through a run with a
// failing task: a page opened mid-run knows the run's start and totals,
// the headings read as written, chart labels are legible, nothing is
// wider than the screen, the failure shows its file:line and excerpt
// (masked), and the page opened without a login says how to log in
// (`vxd open`, whose link logs in).
func TestStatusPageSaysWhy(t *testing.T) {
	chromium, here := browserReady(t)
	bin := t.TempDir()
	root := repoRoot(t)
	run(t, root, "go", "build", "-o", filepath.Join(bin, "vx"), "./cmd/vx")
	run(t, root, "go", "build", "-o", filepath.Join(bin, "vxd"), "./cmd/vxd")
	ws := filepath.Join(t.TempDir(), "ws")
	writeFailingWorkspace(t, ws)
	vx, vxd := filepath.Join(bin, "vx"), filepath.Join(bin, "vxd")
	run(t, ws, vxd, "start")
	t.Cleanup(func() { exec.Command(vxd, "stop", "--root", ws).Run() })
	var st struct {
		Port int `json:"port"`
	}
	if err := json.Unmarshal([]byte(run(t, ws, vxd, "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	// Not a terminal: vxd open only prints the link.
	out := run(t, ws, vxd, "open")
	link, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(link, "http://127.0.0.1:"+strconv.Itoa(st.Port)+"/?") {
		t.Fatalf("vxd open printed %q, want the page's login link first", out)
	}
	shots := t.ArtifactDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "pages.mjs")
	cmd.Dir = here
	cmd.Env = append(os.Environ(), "VXD_URL=http://127.0.0.1:"+strconv.Itoa(st.Port), "LOGIN_LINK="+link, "VX_BIN="+vx, "WORKSPACE="+ws,
		"SHOTS="+shots, "CHROMIUM="+chromium, "SECRET="+failingSecret)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser test: %v\n%s", err, b)
	}
	t.Logf("%s; screenshots in %s", strings.TrimSpace(string(b)), shots)
}
