package vx

import (
	"slices"
	"testing"

	"github.com/vzn/vx/protocol/plugin"
)

// TestPluginsCannotTakeABuiltInVerb: the verbs a plugin may not add
// (plugin.ReservedVerbs) are exactly vx's own, plus help and version, so a
// new verb of vx is never shadowed by a plugin's.
func TestPluginsCannotTakeABuiltInVerb(t *testing.T) {
	own := []string{"help", "version"}
	for _, c := range program.Commands {
		own = append(own, c.Name)
	}
	for _, v := range own {
		if !slices.Contains(plugin.ReservedVerbs, v) {
			t.Errorf("vx's verb %q is not in plugin.ReservedVerbs: a plugin could shadow it", v)
		}
	}
	for _, v := range plugin.ReservedVerbs {
		if !slices.Contains(own, v) {
			t.Errorf("plugin.ReservedVerbs holds %q, which is not a verb of vx", v)
		}
	}
}
