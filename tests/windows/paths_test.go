//go:build !windows

package windows_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// winshSource is a small Windows program the paths test uses twice: as a
// script-shell (winsh -c script: says so, then runs the script through
// cmd.exe as npm would) and as a writer of a file at a long path (winsh
// write path text), which cmd.exe itself cannot make.
const winshSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "-c":
		fmt.Println("via winsh:", os.Args[2])
		cmd := exec.Command(os.Getenv("ComSpec"))
		cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: "cmd.exe /d /s /c \"" + os.Args[2] + "\""}
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case len(os.Args) == 4 && os.Args[1] == "write":
		p, err := filepath.Abs(os.Args[2])
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err == nil {
			err = os.WriteFile(p, []byte(os.Args[3]), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: winsh -c script | winsh write path text")
		os.Exit(2)
	}
}
`

var winsh struct {
	once sync.Once
	exe  string
	err  error
}

// winshExe builds winsh.exe once for the suite.
func winshExe(t *testing.T) string {
	t.Helper()
	winsh.once.Do(func() {
		src := filepath.Join(suite.dir, "winsh", "main.go")
		harness.WriteFile(t, src, winshSource)
		winsh.exe = filepath.Join(suite.dir, "winsh", "winsh.exe")
		if out, err := goWindows(false, "build", "-o", winsh.exe, src).CombinedOutput(); err != nil {
			winsh.err = err
			t.Logf("%s", out)
		}
	})
	if winsh.err != nil {
		t.Fatalf("building winsh.exe: %v", winsh.err)
	}
	return winsh.exe
}

// zPath is a Linux path as wine's Z: drive shows it to a Windows program.
func zPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// longOutput is a#build's output, relative to its project: a path that
// makes the file's absolute path longer than Windows' 260-character limit.
var longOutput = "out/" + strings.Repeat(strings.Repeat("d", 40)+"/", 6) + "file.txt"

// pathsWorkspace writes a workspace whose config is written the Windows
// way (backslashes in projects, inputs and outputs): a's build runs
// through the script-shell its own .npmrc names (winsh, at exe) and
// writes longOutput; b's through cmd.exe.
func pathsWorkspace(t *testing.T, dir, exe string) {
	t.Helper()
	harness.WriteFile(t, filepath.Join(dir, "package.json"), `{ "name": "root", "private": true }`)
	harness.WriteFile(t, filepath.Join(dir, "vx.workspace.json"), `{
  "projects": ["packages\\*"],
  "tasks": { "build": { "inputs": ["src\\**", "package.json"], "outputs": ["out\\**"] } }
}`)
	long := strings.ReplaceAll(longOutput, "/", `\`)
	harness.WriteFile(t, filepath.Join(dir, "packages/a/package.json"),
		`{ "name": "a", "version": "1.0.0", "scripts": { "build": "`+strings.ReplaceAll(zPath(exe), `\`, `\\`)+` write `+strings.ReplaceAll(long, `\`, `\\`)+` long-a" } }`)
	harness.WriteFile(t, filepath.Join(dir, "packages/a/.npmrc"), "script-shell="+zPath(exe)+"\n")
	harness.WriteFile(t, filepath.Join(dir, "packages/a/src/a.txt"), "a1\n")
	harness.WriteFile(t, filepath.Join(dir, "packages/b/package.json"),
		`{ "name": "b", "version": "1.0.0", "scripts": { "build": "mkdir out && echo built b> out\\b.txt" } }`)
	harness.WriteFile(t, filepath.Join(dir, "packages/b/src/b.txt"), "b1\n")
}

// TestPathsUnderWine: vx.exe takes a config written with backslashes (the
// same keys as a Linux vx computes for it, and for its slash spelling),
// runs a's script through the script-shell a's .npmrc names, restores an
// output past 260 characters from the cache, takes --filter .\packages\a
// and ./PACKAGES/A (NTFS folds case), answers vx why with slash paths,
// and refuses a drive-letter input naming the field and the value.
func TestPathsUnderWine(t *testing.T) {
	needWine(t)
	exe := winshExe(t)
	ws := t.TempDir()
	pathsWorkspace(t, ws, exe)
	long := filepath.Join(ws, "packages/a", longOutput)
	if n := len(zPath(long)); n <= 260 {
		t.Fatalf("the long output's path is %d characters, want more than 260", n)
	}

	out, errs, code := wineVX(t, ws, "run", "build")
	if code != 0 || !strings.Contains(out, "a#build: via winsh:") || strings.Contains(out, "b#build: via winsh") {
		t.Fatalf("cold run: exit %d; want a#build through winsh (its .npmrc's script-shell) and b#build through cmd.exe\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(long); err != nil || string(b) != "long-a" {
		t.Fatalf("a's long output: %q, %v", b, err)
	}

	if err := os.RemoveAll(filepath.Join(ws, "packages/a/out")); err != nil {
		t.Fatal(err)
	}
	out, errs, code = wineVX(t, ws, "run", "build", "--format", "json")
	keys, cache := keysOf(t, out)
	if code != 0 || cache["a#build"] != "hit/passed" || cache["b#build"] != "hit/passed" {
		t.Fatalf("warm run: exit %d, %v, want two hits\n%s\n%s", code, cache, out, errs)
	}
	if b, err := os.ReadFile(long); err != nil || string(b) != "long-a" {
		t.Fatalf("a's long output restored from the cache: %q, %v", b, err)
	}
	t.Run("same keys on Linux", func(t *testing.T) { sameKeysForSpellings(t, exe, keys) })

	for _, f := range []string{`.\packages\a`, "./PACKAGES/A"} {
		out, errs, code = wineVX(t, ws, "run", "build", "--filter", f, "--format", "json")
		if _, cache := keysOf(t, out); code != 0 || len(cache) != 1 || cache["a#build"] != "hit/passed" {
			t.Errorf("--filter %s: exit %d, %v, want a#build alone\n%s", f, code, cache, errs)
		}
	}

	harness.WriteFile(t, filepath.Join(ws, "packages/a/src/a.txt"), "a2\n")
	if out, errs, code = wineVX(t, ws, "run", "build"); code != 0 {
		t.Fatalf("run after the edit: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, _ = wineVX(t, ws, "why", "a#build")
	if !strings.Contains(out, "~ file src/a.txt") || strings.Contains(out, `\`) {
		t.Errorf("vx why a#build after editing src\\a.txt: want it named src/a.txt and no backslash:\n%s\n%s", out, errs)
	}

	bad := t.TempDir()
	harness.WriteFile(t, filepath.Join(bad, "vx.workspace.json"), `{ "tasks": { "build": { "inputs": ["C:\\ws\\src\\**"] } } }`)
	out, errs, code = wineVX(t, bad, "run", "build")
	if code == 0 || !strings.Contains(errs, "tasks.build.inputs[0]") || !strings.Contains(errs, `C:\\ws\\src\\**`) {
		t.Errorf("a drive-letter input: exit %d, want a refusal naming tasks.build.inputs[0] and its value\n%s\n%s", code, out, errs)
	}
}

// sameKeysForSpellings runs a Linux vx on the same files, and on them with
// the config spelt with slashes, and compares the keys with wine's (the
// scripts are Windows commands that sh cannot run: keys are compared,
// not statuses).
func sameKeysForSpellings(t *testing.T, exe string, want map[string]string) {
	vx := filepath.Join(t.TempDir(), "vx")
	if err := harness.Build(vx, "./cmd/vx"); err != nil {
		t.Fatal(err)
	}
	for _, slashes := range []bool{false, true} {
		ws := t.TempDir()
		pathsWorkspace(t, ws, exe)
		if slashes {
			harness.WriteFile(t, filepath.Join(ws, "vx.workspace.json"), `{
  "projects": ["packages/*"],
  "tasks": { "build": { "inputs": ["src/**", "package.json"], "outputs": ["out/**"] } }
}`)
		}
		r := harness.Run(t, ws, harness.Env(), vx, "run", "build", "--format", "json")
		got, _ := keysOf(t, r.Stdout)
		for _, id := range []string{"a#build", "b#build"} {
			if got[id] == "" || got[id] != want[id] {
				t.Errorf("%s (config with slashes: %v): key %q on Linux, %q under wine", id, slashes, got[id], want[id])
			}
		}
	}
}
