// Package browser_test drives vxd's status page in headless Chromium
// (Debian's chromium, through playwright-core): login with the token, a
// shell run appearing live and finishing, and a screenshot kept as a test
// artifact.
package browser_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// browserReady finds Debian's chromium and playwright-core, skipping the
// test (failing it under CI) without them.
func browserReady(t *testing.T) (chromium, here string) {
	t.Helper()
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	here = filepath.Join(repoRoot(t), "tests", "browser")
	if _, err := os.Stat(filepath.Join(here, "node_modules", "playwright-core")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("playwright-core is not installed in %s (.ci/run installs it with npm ci)", here)
		}
		t.Skip("playwright-core not installed: (cd tests/browser && npm ci)")
	}
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium is not installed at %s (.ci/run installs Debian's chromium)", chromium)
		}
		t.Skip("chromium not installed")
	}
	return chromium, here
}

func TestStatusPage(t *testing.T) {
	chromium, here := browserReady(t)
	bin := t.TempDir()
	root := repoRoot(t)
	run(t, root, "go", "build", "-o", filepath.Join(bin, "vx"), "./cmd/vx")
	run(t, root, "go", "build", "-o", filepath.Join(bin, "vxd"), "./cmd/vxd")
	ws := filepath.Join(t.TempDir(), "demo")
	run(t, root, "cp", "-r", filepath.Join(root, "examples", "demo"), ws)
	vx, vxd := filepath.Join(bin, "vx"), filepath.Join(bin, "vxd")
	run(t, ws, vx, "run", "build")
	run(t, ws, vxd, "start")
	t.Cleanup(func() { exec.Command(vxd, "stop", "--root", ws).Run() })
	var st struct {
		Port int `json:"port"`
	}
	if err := json.Unmarshal([]byte(run(t, ws, vxd, "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(run(t, ws, vxd, "token"))
	shot := filepath.Join(t.ArtifactDir(), "status-page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e.mjs")
	cmd.Dir = here
	cmd.Env = append(os.Environ(), "VXD_URL=http://127.0.0.1:"+strconv.Itoa(st.Port), "VXD_TOKEN="+token, "VX_BIN="+vx, "WORKSPACE="+ws, "SCREENSHOT="+shot, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser test: %v\n%s", err, out)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot at %s", shot)
	}
	t.Logf("%s; screenshot %s", strings.TrimSpace(string(out)), shot)
}
