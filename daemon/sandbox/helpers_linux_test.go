package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildProbe compiles a probe's C source with gcc (which CI installs) into
// the test's temp dir and returns the binary.
func buildProbe(t *testing.T, name, source string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc is needed to build the %s probe", name)
	}
	bin := filepath.Join(t.TempDir(), name)
	src := bin + ".c"
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, flags...), "-O", "-o", bin, src)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v: %s", err, out)
	}
	return bin
}

// mkdirs creates each directory with its parents, or fails the test.
func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
