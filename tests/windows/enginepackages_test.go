//go:build !windows

package windows_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// enginePackages are the engine's packages whose own tests
// TestEnginePackagesUnderWine runs as windows/amd64 binaries, and
// internal/wine, by which they tell wine; cgo says the test binary needs
// SQLite (history, and runner's tests through it). Nothing is skipped by
// name here: what wine cannot show (a symlink, git for Windows) the tests
// skip themselves, only under wine, saying why.
var enginePackages = []struct {
	pkg string
	cgo bool
}{
	{"daemon/workspace", false},
	{"daemon/hashing", false},
	{"daemon/cache", false},
	{"daemon/history", true},
	{"daemon/runner", true},
	{"internal/wine", false},
}

// TestEnginePackagesUnderWine: the engine packages' tests pass as
// windows/amd64 binaries under wine; a failure names the package and the
// test, and each package's count of tests run, passed and skipped (with
// the reason each skip gave) is logged.
func TestEnginePackagesUnderWine(t *testing.T) {
	needWine(t)
	exes := compileEngineTests(t)
	for _, p := range enginePackages {
		t.Run(strings.ReplaceAll(p.pkg, "/", "_"), func(t *testing.T) {
			t.Parallel()
			res := runUnderWine(t, p.pkg, exes[p.pkg])
			t.Logf("%s under wine: %d tests run (subtests included), %d passed, %d skipped, in %s%s",
				p.pkg, res.run, res.passed, len(res.skipped), res.took.Round(100*time.Millisecond), skipList(res.skipped))
			for _, name := range res.failed {
				t.Errorf("%s: %s failed as a Windows binary under wine:\n%s", p.pkg, name, tail([]byte(res.output[name]), 4000))
			}
			if res.exitErr != nil && len(res.failed) == 0 {
				t.Errorf("%s: the test binary ended with %v and no test failed:\n%s", p.pkg, res.exitErr, tail(res.rest, 6000))
			}
			if res.run == 0 {
				t.Errorf("%s: no test ran", p.pkg)
			}
		})
	}
}

// compileEngineTests cross-compiles the engine packages' tests, two at a
// time, into the suite's directory, and answers each package's binary.
func compileEngineTests(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(suite.dir, "engine")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exes := map[string]string{}
	errs := make([]string, len(enginePackages))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2)
	for i, p := range enginePackages {
		exe := filepath.Join(dir, strings.ReplaceAll(p.pkg, "/", "_")+".test.exe")
		exes[p.pkg] = exe
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			args := []string{"test", "-c", "-o", exe, "-overlay", suite.overlay}
			if p.cgo {
				args = append(args, "-tags", "sqlite_omit_load_extension", "-ldflags", "-extldflags=-static")
			}
			if out, err := goWindows(p.cgo, append(args, "./"+p.pkg)...).CombinedOutput(); err != nil {
				errs[i] = fmt.Sprintf("cross-compiling the tests of %s: %v\n%s", p.pkg, err, out)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	return exes
}

// wineResult is what one package's test binary did under wine.
type wineResult struct {
	run, passed int
	skipped     map[string]string // test → the reason it gave
	failed      []string
	output      map[string]string // test → its output
	rest        []byte            // output of no test (a panic, a build line)
	exitErr     error
	took        time.Duration
}

// runUnderWine runs exe (pkg's tests) under wine in pkg's directory,
// through test2json, and sorts its events by test.
func runUnderWine(t *testing.T, pkg, exe string) wineResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "tool", "test2json", "-p", pkg,
		wineBin, exe, "-test.v=test2json", "-test.count=1", "-test.timeout=3m")
	cmd.Dir = filepath.Join(harness.ModuleRoot(), pkg)
	cmd.Env = wineEnv("VX_TEST_UNDER_WINE=1") // internal/wine's test checks it tells wine
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	res := wineResult{skipped: map[string]string{}, output: map[string]string{}, exitErr: err, took: time.Since(start)}
	res.collect(out)
	res.rest = append(res.rest, stderr.Bytes()...)
	return res
}

// collect reads test2json's events into res.
func (res *wineResult) collect(events []byte) {
	sc := bufio.NewScanner(bytes.NewReader(events))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			res.rest = append(append(res.rest, sc.Bytes()...), '\n')
			continue
		}
		if e.Test == "" {
			if e.Action == "output" {
				res.rest = append(res.rest, e.Output...)
			}
			continue
		}
		switch e.Action {
		case "run":
			res.run++
		case "pass":
			res.passed++
		case "fail":
			res.failed = append(res.failed, e.Test)
		case "skip":
			res.skipped[e.Test] = skipReason(res.output[e.Test])
		case "output":
			res.output[e.Test] += e.Output
		}
	}
}

// skipReason is the message a skipped test's output gave (its file:line
// lines, not the === and --- ones).
func skipReason(out string) string {
	var msg []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "===") && !strings.HasPrefix(line, "---") {
			msg = append(msg, line)
		}
	}
	return strings.Join(msg, " ")
}

// skipList lists skipped tests with their reasons, one a line.
func skipList(skipped map[string]string) string {
	names := make([]string, 0, len(skipped))
	for name := range skipped {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "\n  skipped %s: %s", name, skipped[name])
	}
	return b.String()
}
