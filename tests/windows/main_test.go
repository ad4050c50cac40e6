//go:build !windows

// Package windows_test checks the windows/amd64 build on this Linux
// machine: binaries and the packages' own tests cross-compiled with
// GOOS=windows and run under wine. Wine 8 (Debian 12) lacks two things
// Go 1.26 uses, which the harness supplies and nothing else: ProcessPrng
// (a bcryptprimitives.dll built from shim/prng.c, copied into a private
// prefix), and FileDispositionInformationEx (an overlay makes os.Remove
// take Go's own fallback, the path Windows before 10 1607 takes). What
// wine cannot show is listed in docs/install.md; the hosted workflow runs
// the same tests on a real Windows runner.
package windows_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

const (
	wineBin = "wine"
	mingwCC = "x86_64-w64-mingw32-gcc"
)

// suite is what TestMain prepared: a wine prefix with the shim, and the
// overlay file for the test builds. err says why there is none.
var suite struct {
	dir, prefix, overlay string
	err                  error
}

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "vx-windows-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		suite.dir = dir
		// Wine shows a file's access list as its mode bits say: files
		// wine programs create are then the user's alone, as vx makes
		// them on Windows (wine keeps no list a program sets).
		syscall.Umask(0o077)
		if missing := missingTools(); missing != "" {
			suite.err = fmt.Errorf("%s", missing)
		} else {
			suite.err = prepare(dir)
			defer stopWineserver()
		}
		return m.Run()
	}()
	os.Exit(code)
}

// missingTools names the tools the suite needs that are not installed.
func missingTools() string {
	var out []string
	for name, pkg := range map[string]string{wineBin: "Debian's wine and wine64", mingwCC: "Debian's gcc-mingw-w64-x86-64"} {
		if _, err := exec.LookPath(name); err != nil {
			out = append(out, fmt.Sprintf("%s is not installed (%s)", name, pkg))
		}
	}
	return strings.Join(out, "; ")
}

// needWine skips (outside CI) or fails (on CI) when the suite could not
// prepare wine.
func needWine(t *testing.T) {
	t.Helper()
	if suite.err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("the windows suite needs wine: %v; CI must have it (.ci/run installs it)", suite.err)
	}
	t.Skipf("skipping the windows/amd64 checks under wine: %v", suite.err)
}

// prepare builds the shim, makes a wine prefix in dir with it in
// system32, and writes the overlay.
func prepare(dir string) error {
	if err := wineboot(dir); err != nil {
		return err
	}
	dll := filepath.Join(suite.prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	src := filepath.Join(harness.ModuleRoot(), "tests", "windows", "shim", "prng.c")
	if out, err := exec.Command(mingwCC, "-shared", "-O2", "-s", "-o", dll, src, "-ladvapi32").CombinedOutput(); err != nil {
		return fmt.Errorf("building the ProcessPrng shim: %v\n%s", err, out)
	}
	return writeOverlay(dir)
}

// wineboot creates a headless 64-bit prefix under dir.
func wineboot(dir string) error {
	suite.prefix = filepath.Join(dir, "prefix")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, wineBin, "wineboot", "-i")
	cmd.Env = wineEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("wineboot -i: %v\n%s", err, out)
	}
	return keepWineserver(ctx)
}

// keepWineserver waits for the server wineboot left to end, then starts
// one that stays up for the whole suite (stopWineserver ends it): a wine
// started while the server of the one before exits fails at once, and
// under WINEDEBUG=-all says nothing (internal/flock's tests, the first to
// run, failed so once with no output).
func keepWineserver(ctx context.Context) error {
	wait := exec.CommandContext(ctx, "wineserver", "-w")
	wait.Env = wineEnv()
	if out, err := wait.CombinedOutput(); err != nil {
		return fmt.Errorf("wineserver -w: %v\n%s", err, out)
	}
	// It puts itself in the background (no -f), keeping the output it
	// was given: none, so that no pipe of the suite stays open with it.
	keep := exec.CommandContext(ctx, "wineserver", "-p")
	keep.Env = wineEnv()
	if err := keep.Run(); err != nil {
		return fmt.Errorf("wineserver -p: %v", err)
	}
	return nil
}

// wineEnv is the environment wine runs in: the suite's prefix, no display
// (nothing may open a window), no debug channels.
func wineEnv(extra ...string) []string {
	env := append(harness.Env("DISPLAY", "WAYLAND_DISPLAY", "WINEPREFIX", "WINEDEBUG", "WINEARCH"),
		"WINEPREFIX="+suite.prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
	return append(env, extra...)
}

// stopWineserver ends the prefix's wineserver and what it still runs.
func stopWineserver() {
	cmd := exec.Command("wineserver", "-k")
	cmd.Env = wineEnv()
	_ = cmd.Run()
}

// writeOverlay writes the go build -overlay file that adds one file to
// the standard library's internal/syscall/windows: it makes os.Remove
// take Go's fallback, because wine 8 answers STATUS_NOT_IMPLEMENTED to
// the FileDispositionInformationEx call Go makes first (and only falls
// back from "not supported"). Without it every t.TempDir fails to clean.
func writeOverlay(dir string) error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %v", err)
	}
	src := filepath.Join(dir, "wine_deleteat.go")
	code := "package windows\n\n// Wine 8 lacks FileDispositionInformationEx (tests/windows).\nfunc init() { TestDeleteatFallback = true }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		return err
	}
	target := filepath.Join(strings.TrimSpace(string(goroot)), "src", "internal", "syscall", "windows", "zz_wine_deleteat.go")
	suite.overlay = filepath.Join(dir, "overlay.json")
	return os.WriteFile(suite.overlay, []byte(fmt.Sprintf(`{"Replace":{%q:%q}}`, target, src)), 0o644)
}

// goWindows is the go command with args for windows/amd64 in the module
// root: cgo off, or on with the mingw compiler when cgo is true.
func goWindows(cgo bool, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if cgo {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=1", "CC="+mingwCC)
	}
	return cmd
}

// wine runs a windows executable with args in dir, within limit, and
// answers its combined output.
func wine(t *testing.T, limit time.Duration, dir string, exe string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, wineBin, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = wineEnv()
	cmd.WaitDelay = 10 * time.Second
	return cmd.CombinedOutput()
}

// tail is the last n bytes of out.
func tail(out []byte, n int) []byte {
	if len(out) > n {
		return out[len(out)-n:]
	}
	return out
}
