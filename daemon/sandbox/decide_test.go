package sandbox

import (
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// TestDecide covers what a run does with a sandboxed task on each kind of
// host, macOS's included: its verdict (unavailable("darwin")) is built by
// the same function there, so this runs on Linux.
func TestDecide(t *testing.T) {
	full := Verdict{Landlock: true, ABI: 7, Enforced: []string{"filesystem writes"}, Observer: observerName}
	noLandlock := Verdict{Enforced: []string{}, Observer: observerName, Reason: "no Landlock"}
	noObserver := Verdict{Landlock: true, ABI: 7, Enforced: []string{"filesystem writes"}, Reason: "no observer"}
	darwin := unavailable("darwin")
	for _, c := range []struct {
		name     string
		v        Verdict
		mode     string
		required bool
		want     Decision
		warning  string // a substring of the warning; "" none
	}{
		{"linux enforce", full, wire.SandboxEnforce, false, Decision{Landlock: true, Observe: true}, ""},
		{"linux report", full, wire.SandboxReport, false, Decision{Observe: true}, ""},
		{"linux required", full, wire.SandboxEnforce, true, Decision{Landlock: true, Observe: true}, ""},
		{"no landlock enforce", noLandlock, wire.SandboxEnforce, false, Decision{Observe: true}, "its sandbox is not enforced: no Landlock; it runs unconfined"},
		{"no landlock report", noLandlock, wire.SandboxReport, false, Decision{Observe: true}, ""},
		{"no landlock required enforce", noLandlock, wire.SandboxEnforce, true, Decision{Refuse: true}, ""},
		{"no landlock required report", noLandlock, wire.SandboxReport, true, Decision{Observe: true}, ""},
		{"no observer enforce", noObserver, wire.SandboxEnforce, false, Decision{Landlock: true}, "violations cannot be recorded: no observer"},
		{"no observer report", noObserver, wire.SandboxReport, false, Decision{}, "its report sandbox cannot observe here: no observer"},
		{"no observer required", noObserver, wire.SandboxEnforce, true, Decision{Refuse: true}, ""},
		{"darwin enforce", darwin, wire.SandboxEnforce, false, Decision{HostWide: true}, "not available on darwin"},
		{"darwin report", darwin, wire.SandboxReport, false, Decision{HostWide: true}, "every task that declares a sandbox runs unconfined"},
		{"darwin required", darwin, wire.SandboxEnforce, true, Decision{Refuse: true}, ""},
		{"darwin required report", darwin, wire.SandboxReport, true, Decision{Refuse: true}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Decide(c.v, c.mode, c.required)
			if (got.Warning == "") != (c.warning == "") || !strings.Contains(got.Warning, c.warning) {
				t.Errorf("warning %q, want one with %q", got.Warning, c.warning)
			}
			got.Warning = ""
			if got != c.want {
				t.Errorf("Decide = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestUnavailableVerdict: the verdict vx info shows on macOS says why and
// claims nothing.
func TestUnavailableVerdict(t *testing.T) {
	v := unavailable("darwin")
	if v.Landlock || v.ABI != 0 || len(v.Enforced) != 0 || v.Enforced == nil || v.Observer != "" || !strings.Contains(v.Reason, "not available on darwin") {
		t.Errorf("verdict = %+v", v)
	}
}
