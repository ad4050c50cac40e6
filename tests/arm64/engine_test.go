package arm64_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// enginePackages are the packages whose tests TestArm64EnginePackages runs
// as arm64 binaries.
var enginePackages = []string{"daemon/hashing", "daemon/cache", "daemon/history", "daemon/workspace", "daemon/runner"}

// cannotRunUnderQemuUser names, per package, the tests that cannot pass
// under qemu-user on this machine, with why. Only these are skipped.
func cannotRunUnderQemuUser() map[string]map[string]string {
	skip := map[string]map[string]string{"daemon/history": {
		// qemu-user answers reads of /proc/self/stat itself, and the
		// start-time field it makes up drifts between reads (measured:
		// three values in 200 reads of one process); a run's owner is
		// told apart from a reused pid by exactly that field.
		"TestReapDeadRuns": "qemu-user's emulated /proc/self/stat start time changes between reads",
		// The same field: its runs still recording are judged dead and
		// reaped as interrupted, so its answers are not the golden ones.
		"TestInterleavedRunsAnswerAsPerHitRows": "qemu-user's emulated /proc/self/stat start time changes between reads",
	}, "daemon/runner": {
		// Its second run is given 300 ms to reach a held lock; emulated on a
		// loaded machine, opening the history alone took longer (seen once
		// in a cold suite at load 15: "reading schema version: context
		// deadline exceeded"), so the run ends before what is tested.
		"TestIntactHitTakesNoLock": "a 300 ms deadline that emulation on a loaded machine can spend before the run reaches the lock",
		// (On main, with the run cgroups.) It starts a process straight
		// into a cgroup itself (SysProcAttr.UseCgroupFD), which Go does
		// with clone3, a call qemu-user answers with ENOSYS.
		"TestStaleRunCgroupIsRemoved": "starts a process into a cgroup with clone3, which qemu-user does not implement",
	}}
	if !binfmtRuns() {
		// It starts copies of its own test binary as concurrent writers;
		// without binfmt_misc the kernel cannot exec an aarch64 file.
		skip["daemon/history"]["TestConcurrentProcesses"] = "re-executes the arm64 test binary, which this kernel cannot exec without binfmt_misc"
		skip["daemon/history"]["TestKilledWriterReaped"] = "re-executes the arm64 test binary, which this kernel cannot exec without binfmt_misc"
	}
	return skip
}

// TestArm64EnginePackages: the engine's own tests pass as static arm64
// binaries under qemu-user (without -race: the race detector's shadow
// memory layout does not run under qemu-user).
func TestArm64EnginePackages(t *testing.T) {
	needTools(t)
	dir := tmp(t)
	skips := cannotRunUnderQemuUser()
	for _, pkg := range enginePackages {
		t.Run(strings.ReplaceAll(pkg, "/", "_"), func(t *testing.T) {
			bin := filepath.Join(dir, filepath.Base(pkg)+".test")
			if err := goArm64("test", "-c", "-o", bin, "-tags", buildTags, "-ldflags", linkFlags, "./"+pkg).Run(); err != nil {
				t.Fatalf("cross-compiling the tests of %s: %v", pkg, err)
			}
			args := []string{bin, "-test.count=1", "-test.timeout=8m"}
			if s := skips[pkg]; len(s) > 0 {
				var names []string
				for name, why := range s {
					t.Logf("skipping %s.%s under qemu-user: %s", pkg, name, why)
					names = append(names, "^"+name+"$")
				}
				args = append(args, "-test.skip="+strings.Join(names, "|"))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, qemu, args...)
			cmd.Dir = filepath.Join(harness.ModuleRoot(), pkg)
			cmd.Env = harness.Env()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the arm64 tests of %s under qemu-user: %v\n%s", pkg, err, tail(out, 4000))
			}
		})
	}
}

// tail is the last n bytes of out.
func tail(out []byte, n int) []byte {
	if len(out) > n {
		return out[len(out)-n:]
	}
	return out
}
