package server

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/internal/testtree"
)

// TestAPluginRewritingItselfStopsReloading: a plugin that rewrites its
// own entry each time it answers (an edit of the plugin, which vxd
// reloads on, and which asks it again) makes vxd reload a bounded
// number of times after an edit of the user's, then stop reloading on
// those edits and say so in its status, naming the plugin. The wait ends
// when the status says so, or once the plugin has started far more often
// than the bound lets it (the loop goes on); the bound on time only
// stops a hung test.
func TestAPluginRewritingItselfStopsReloading(t *testing.T) {
	needNode(t)
	root := newWorkspace(t, `{"projects": ["apps/*"], "plugins": ["./tools/gen/plugin.mjs"]}`)
	rewrite := `writeFileSync(new URL(import.meta.url), readFileSync(new URL(import.meta.url), "utf8") + "// " + Date.now() + " " + process.pid + "\n")`
	testtree.Write(t, root, map[string]string{
		"tools/gen/plugin.mjs": strings.Replace(selfWriter, "WRITE", rewrite, 1),
		"tools/gen/lib.mjs":    genLib,
	})
	r, _, first := serveAndEdit(t, root)
	// Each reload asks the plugin twice (describe and tasks: its identity
	// changed), the user's and maxSelfReloads more.
	most := 2 * (1 + maxSelfReloads)
	var said string
	for bound := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		st := r.status(t)
		if said = st.PluginEditsIgnored; said != "" || starts(t, root)-first > 10*most {
			break
		}
		if time.Now().After(bound) {
			t.Fatalf("vxd neither stopped reloading nor went on: last reload %+v, the plugin started %d times", st.LastReload, starts(t, root)-first)
		}
	}
	got := starts(t, root) - first
	t.Logf("the plugin started %d times after the user's edit; vxd says: %s", got, said)
	if got > most {
		t.Errorf("the plugin started %d times after the user's edit, want at most %d", got, most)
	}
	if !strings.Contains(said, "./tools/gen/plugin.mjs") || !strings.Contains(said, filepath.FromSlash("tools/gen/plugin.mjs")+" ") {
		t.Errorf("vxd status's pluginEditsIgnored = %q, want the plugin and the file it rewrites named", said)
	}
}
