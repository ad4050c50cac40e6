//go:build !windows

package windows_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// lineGit runs git with args in dir, with no system or global config, and
// answers its output.
func lineGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
		"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(harness.Env(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestLineEndingsReachTheKey checks what docs/cache.md says of git's
// line-ending conversion, with git's own core.autocrlf (which converts on
// checkout on any OS, so Linux shows what Git for Windows does): vx hashes
// bytes as on disk, so a CRLF checkout keys differently from an LF one,
// and `* text=auto eol=lf` in .gitattributes makes both check out LF and
// the keys agree.
func TestLineEndingsReachTheKey(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	vx := filepath.Join(t.TempDir(), "vx")
	if err := harness.Build(vx, "./cmd/vx"); err != nil {
		t.Fatal(err)
	}
	origin := t.TempDir()
	harness.WriteFile(t, filepath.Join(origin, "package.json"), `{ "name": "root", "private": true, "workspaces": ["packages/*"] }`+"\n")
	harness.WriteFile(t, filepath.Join(origin, "vx.workspace.json"), `{ "tasks": { "build": { "inputs": ["src/**"] } } }`+"\n")
	harness.WriteFile(t, filepath.Join(origin, "packages/a/package.json"), `{ "name": "a", "scripts": { "build": "echo ok" } }`+"\n")
	harness.WriteFile(t, filepath.Join(origin, "packages/a/src/a.txt"), "one\ntwo\n")
	lineGit(t, origin, "init", "-q")
	lineGit(t, origin, "add", ".")
	lineGit(t, origin, "commit", "-qm", "lf")

	keyOf := func(autocrlf string) (key string, crlf bool) {
		t.Helper()
		clone := filepath.Join(t.TempDir(), "ws")
		lineGit(t, filepath.Dir(clone), "-c", "core.autocrlf="+autocrlf, "clone", "-q", origin, clone)
		lineGit(t, clone, "config", "core.autocrlf", autocrlf)
		b, err := os.ReadFile(filepath.Join(clone, "packages/a/src/a.txt"))
		if err != nil {
			t.Fatal(err)
		}
		r := harness.Run(t, clone, harness.Env(), vx, "run", "build", "--format", "json")
		keys, _ := keysOf(t, r.Stdout)
		return keys["a#build"], bytes.Contains(b, []byte("\r\n"))
	}

	lf, lfCRLF := keyOf("false")
	crlf, crlfCRLF := keyOf("true")
	if lfCRLF || !crlfCRLF {
		t.Fatalf("checkouts: CRLF with autocrlf=false %v, with autocrlf=true %v; want false, true", lfCRLF, crlfCRLF)
	}
	if lf == "" || lf == crlf {
		t.Errorf("a#build's key %q from the LF checkout, %q from the CRLF one: want them to differ (vx hashes bytes as on disk)", lf, crlf)
	}

	harness.WriteFile(t, filepath.Join(origin, ".gitattributes"), "* text=auto eol=lf\n")
	lineGit(t, origin, "add", ".gitattributes")
	lineGit(t, origin, "commit", "-qm", "eol=lf")
	lf, lfCRLF = keyOf("false")
	crlf, crlfCRLF = keyOf("true")
	if lfCRLF || crlfCRLF {
		t.Errorf("with eol=lf, checkouts with CRLF: %v (autocrlf=false), %v (autocrlf=true); want none", lfCRLF, crlfCRLF)
	}
	if lf == "" || lf != crlf {
		t.Errorf("with eol=lf, a#build's keys %q and %q: want them equal", lf, crlf)
	}
}
