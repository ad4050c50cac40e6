// Package arm64_test checks the linux/arm64 build where a user gets it: vx
// and vxd cross-compiled static with Debian's aarch64 C compiler (as make
// release builds them), run under qemu-user on this machine, and the
// engine packages' own tests cross-compiled and run the same way.
package arm64_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

const (
	qemu = "qemu-aarch64-static"
	cc   = "aarch64-linux-gnu-gcc"
)

// buildTags and linkFlags are make release's for Linux (scripts/release.sh):
// static, so qemu-user needs no aarch64 loader or libc on this machine.
var (
	buildTags = "netgo,osusergo,sqlite_omit_load_extension"
	linkFlags = "-linkmode external -extldflags -static"
)

// goArm64 runs the go command with args for linux/arm64 with cgo and the
// cross compiler, in the module root.
func goArm64(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOOS=linux", "GOARCH=arm64", "CC="+cc)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd
}

// needTools skips (outside CI) or fails (on CI) without qemu-user or the
// cross compiler.
func needTools(t *testing.T) {
	t.Helper()
	for name, pkg := range map[string]string{qemu: "Debian's qemu-user-static", cc: "Debian's gcc-aarch64-linux-gnu"} {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (%s); CI must have it (.ci/run installs it)", name, pkg)
			}
			t.Skipf("%s is not installed (%s): skipping the linux/arm64 checks", name, pkg)
		}
	}
}

// binfmtRuns reports whether this kernel runs aarch64 executables itself
// (binfmt_misc with qemu registered), so that one arm64 binary can start
// another.
func binfmtRuns() bool {
	b, err := os.ReadFile("/proc/sys/fs/binfmt_misc/qemu-aarch64")
	return err == nil && len(b) >= 7 && string(b[:7]) == "enabled"
}

// tmp is a fresh directory for the suite's binaries.
func tmp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "vx-arm64-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d)
}
