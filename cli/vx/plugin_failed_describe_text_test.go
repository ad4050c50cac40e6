package vx

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/ops"
)

// TestInfoLineOfPluginThatNeverDescribed: a plugin whose describe failed
// (not executable, garbage) has no stages; vx info says "stages none"
// rather than leaving an empty list before a comma.
func TestInfoLineOfPluginThatNeverDescribed(t *testing.T) {
	p := ops.InfoPlugin{Plugin: "./tools/x.py", Error: "plugin ./tools/x.py (vx.workspace.json): describe: it could not be started"}
	line := pluginText(p)
	if !strings.HasPrefix(line, "./tools/x.py: stages none, 0 task(s) from 0 file(s); error: plugin ./tools/x.py") {
		t.Errorf("vx info line: %s", line)
	}
}
