//go:build !windows

package live_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// TestJournalOverItsDescriptorBudget is macOS's large workspace, on Linux:
// VXD_JOURNAL_DESCRIPTORS=5 makes vxd count its watches as kqueue holds
// them (a descriptor per watched directory and per entry in it) within a
// budget the workspace needs more than. The journal then watches nothing,
// vxd status and vx doctor say why, and runs stat every file and still see
// an edit.
func TestJournalOverItsDescriptorBudget(t *testing.T) {
	root := journalWorkspace(t)
	d := startDaemonEnv(t, root, "VXD_JOURNAL_DESCRIPTORS=5")
	const why = "more files than vxd may watch within the open-file limit"
	harness.WaitFor(t, 20*time.Second, "the journal to stop at its budget", func() bool {
		ans, code := askChanges(t, d, d.token, "")
		return code == http.StatusOK && strings.Contains(ans.Reason, why)
	})

	r := run(t, root, vxdBin, "status", "--json")
	var st wire.Status
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || !st.JournalStopped || !strings.Contains(st.Journal, why) {
		t.Errorf("vxd status --json: stopped %v, journal %q (%v)\n%s", st.JournalStopped, st.Journal, err, r)
	}
	if text := run(t, root, vxdBin, "status"); !strings.Contains(text.Stdout, why) {
		t.Errorf("vxd status does not say why the journal stopped\n%s", text)
	}

	r = run(t, root, vxBin, "doctor", "--format", "json")
	var doc struct {
		Checks []struct{ Name, Status, Detail, Fix string } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("vx doctor --format json: %v\n%s", err, r)
	}
	found := false
	for _, c := range doc.Checks {
		if c.Name == "change journal" {
			found = true
			if c.Status != "problem" || !strings.Contains(c.Detail, why) || !strings.Contains(c.Fix, "open-file limit") {
				t.Errorf("vx doctor's change journal check: %+v", c)
			}
		}
	}
	if !found || r.Code != 1 {
		t.Errorf("vx doctor: exit %d, want 1 and a change journal check\n%s", r.Code, r.Stdout)
	}

	journalRun(t, root)
	harness.WriteFile(t, filepath.Join(root, "packages/c/src/f1.js"), "edited\n")
	s, how := journalRun(t, root)
	if !strings.Contains(how, why) || executed(s) != "c#build" {
		t.Errorf("want every file statted and the edit seen; executed %q, went: %s", executed(s), how)
	}
}
