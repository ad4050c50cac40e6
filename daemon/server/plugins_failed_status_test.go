package server

import (
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// TestStatusCountsOnlyFailedPlugins: vxd status's pluginsFailed (and the
// feed's model.reloaded) names the plugins that failed, not a plugin
// that loaded with part of its answer left out (a task another plugin
// declared first also infers), which vx info alone says, as every other
// command does.
func TestStatusCountsOnlyFailedPlugins(t *testing.T) {
	needNode(t)
	root := newWorkspace(t, `{"projects": ["apps/*"], "plugins": ["./tools/gen/plugin.mjs", "./tools/gen2/plugin.mjs"]}`)
	testtree.Write(t, root, map[string]string{
		"tools/gen/plugin.mjs": genPlugin, "tools/gen/lib.mjs": genLib,
		"tools/gen2/plugin.mjs": genPlugin, "tools/gen2/lib.mjs": genLib,
	})
	r := serve(t, root, -1)
	st := r.status(t)
	if st.LastReload == nil || !st.LastReload.OK {
		t.Fatalf("the workspace did not load: %+v, %q", st.LastReload, st.ConfigError)
	}
	if len(st.LastReload.PluginsFailed) != 0 {
		t.Fatalf("vxd status says plugins failed that loaded: %v", st.LastReload.PluginsFailed)
	}
}
