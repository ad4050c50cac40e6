package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// An open with O_PATH ignores O_CREAT, O_TRUNC and the access mode: it
// writes nothing, so it is no violation (in report mode one would keep
// the task out of the cache) and Landlock denies nothing.
func TestOpenWithOPathIsNoViolation(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	mkdirs(t, proj)
	victim := filepath.Join(root, "victim")
	if err := os.WriteFile(victim, []byte("v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 257 is openat; 010000000 O_PATH, 0100 O_CREAT, 01000 O_TRUNC, 02 O_RDWR.
	cmd := `perl -e '$n = "../none"; $v = "../victim"; syscall(257, -100, $n, 010000000|0100, 0644) < 0 or die "created"; syscall(257, -100, $v, 010000000|01000|02) >= 0 or die "open: $!"'`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if b, _ := os.ReadFile(victim); string(b) != "v\n" {
		t.Fatalf("O_PATH truncated %s: %q", victim, b)
	}
	if len(vs) != 0 {
		t.Fatalf("violations = %+v, want none", vs)
	}
}
