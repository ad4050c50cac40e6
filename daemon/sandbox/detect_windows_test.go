package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// TestWindowsHasNoSandbox: on Windows the verdict says the sandbox is not
// available on windows and claims nothing, a required sandbox is refused
// before anything runs, an optional one runs unconfined with one warning
// for the run, and Start confines nothing.
func TestWindowsHasNoSandbox(t *testing.T) {
	v := Detect()
	if v.Landlock || len(v.Enforced) != 0 || v.Observer != "" || !strings.Contains(v.Reason, "not available on windows") {
		t.Fatalf("verdict = %+v, want none, saying it is not available on windows", v)
	}
	for _, mode := range []string{wire.SandboxEnforce, wire.SandboxReport} {
		if d := Decide(v, mode, true); !d.Refuse {
			t.Errorf("a required %s sandbox: %+v, want it refused", mode, d)
		}
		if d := Decide(v, mode, false); d.Refuse || d.Landlock || d.Observe || !d.HostWide || !strings.Contains(d.Warning, "runs unconfined") {
			t.Errorf("an optional %s sandbox: %+v, want it unconfined with one warning a run", mode, d)
		}
	}
	if s, err := Start(exec.Command("cmd.exe", "/c", "exit"), &Policy{}); s != nil || err == nil {
		t.Errorf("Start = %v, %v; want a refusal", s, err)
	}
}
