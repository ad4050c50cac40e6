package arm64_test

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// TestArm64Binaries: the static linux/arm64 vx and vxd have no dynamic
// loader and run under qemu-user: --version names linux/arm64, a cold and
// a warm run of a generated workspace (the second from the cache), vx why
// naming the edited file, and vx mcp starting vxd and answering
// initialize and tools/list.
func TestArm64Binaries(t *testing.T) {
	needTools(t)
	bin := buildBinaries(t)
	for _, name := range []string{"vx", "vxd"} {
		assertStatic(t, filepath.Join(bin, name))
	}
	vx := reach.Command{qemu, filepath.Join(bin, "vx")}
	vxd := reach.Command{filepath.Join(bin, "vxd")}
	root := reach.Workspace(t, nil)
	env := harness.Env()
	if r := vx.Run(t, root, env, "--version"); r.Code != 0 || !strings.HasSuffix(strings.TrimSpace(r.Stdout), ", linux/arm64)") {
		t.Fatalf("vx --version: want linux/arm64 named\n%s", r)
	}
	reach.ColdWarm(t, vx, root, env)
	reach.Why(t, vx, root, env)
	reach.MCP(t, append(vx, "mcp"), root, env, func() { vxd.Run(t, root, env, "stop") })
}

// buildBinaries cross-compiles vx and vxd into a fresh bin directory.
// Where the kernel cannot run aarch64 executables itself (no binfmt_misc
// entry for qemu, as in an unprivileged container), vx could not start the
// vxd beside it, so vxd there is a two-line script running vxd.arm64
// under qemu: what binfmt_misc would do.
func buildBinaries(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(tmp(t), "bin")
	vxdOut := filepath.Join(bin, "vxd")
	if !binfmtRuns() {
		vxdOut += ".arm64"
		harness.WriteFile(t, filepath.Join(bin, "vxd"), "#!/bin/sh\nexec "+qemu+" \"$0.arm64\" \"$@\"\n")
		if err := os.Chmod(filepath.Join(bin, "vxd"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for out, pkg := range map[string]string{filepath.Join(bin, "vx"): "./cmd/vx", vxdOut: "./cmd/vxd"} {
		if err := goArm64("build", "-tags", buildTags, "-ldflags", linkFlags, "-o", out, pkg).Run(); err != nil {
			t.Fatalf("cross-compiling %s: %v", pkg, err)
		}
	}
	return bin
}

// assertStatic fails for an ELF that is not aarch64 or asks for a loader.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	if !binfmtRuns() && filepath.Base(path) == "vxd" {
		path += ".arm64"
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 {
		t.Errorf("%s is for %v, not aarch64", path, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader (PT_INTERP): not static", path)
		}
	}
}
