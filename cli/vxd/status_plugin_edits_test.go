package vxd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// TestStatusSaysPluginEditsAreIgnored: vxd status prints, on a line of
// its own, that vxd stopped reloading on a plugin's edits of itself, and
// prints no such line otherwise.
func TestStatusSaysPluginEditsAreIgnored(t *testing.T) {
	var b bytes.Buffer
	renderStatus(&b, &wire.Status{PluginEditsIgnored: "plugin ./p.mjs rewrote p.mjs while vxd asked it"})
	if !strings.Contains(b.String(), "plugin edits  plugin ./p.mjs rewrote p.mjs while vxd asked it\n") {
		t.Errorf("vxd status does not say a plugin's edits are ignored:\n%s", b.String())
	}
	b.Reset()
	renderStatus(&b, &wire.Status{})
	if strings.Contains(b.String(), "plugin edits") {
		t.Errorf("vxd status speaks of plugin edits when none is ignored:\n%s", b.String())
	}
}
