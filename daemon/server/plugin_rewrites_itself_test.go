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
// reloads on, and which asks it again), or writes a file its globs match
// (an edit vxd reloads on, which asks it for its tasks again), makes vxd
// reload a bounded number of times after an edit of the user's, then
// stop reloading on those edits and say so in its status, naming the
// plugin and the file. The wait ends when the status says so, or once
// the plugin has started far more often than the bound lets it (the
// loop goes on); the bound on time only stops a hung test.
func TestAPluginRewritingItselfStopsReloading(t *testing.T) {
	needNode(t)
	for _, tc := range []struct {
		name, write, globs, file string
		perReload                int // the plugin's starts in each reload
	}{
		// Its identity changes: describe and tasks.
		{"its entry", `writeFileSync(new URL(import.meta.url), readFileSync(new URL(import.meta.url), "utf8") + "// " + Date.now() + " " + process.pid + "\n")`,
			`["apps/*/package.json"]`, "tools/gen/plugin.mjs", 2},
		// A file it matched changes: tasks.
		{"a file its globs match", `if (req.stage === "tasks") writeFileSync("apps/web/gen.json", JSON.stringify({ at: Date.now(), pid: process.pid }))`,
			`["apps/*/package.json", "apps/*/gen.json"]`, "apps/web/gen.json", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newWorkspace(t, `{"projects": ["apps/*"], "plugins": ["./tools/gen/plugin.mjs"]}`)
			plugin := strings.Replace(selfWriter, "WRITE", tc.write, 1)
			testtree.Write(t, root, map[string]string{
				"tools/gen/plugin.mjs": strings.Replace(plugin, `["apps/*/package.json"]`, tc.globs, 1),
				"tools/gen/lib.mjs":    genLib,
			})
			r, _, first := serveAndEdit(t, root)
			// The user's reload and maxSelfReloads more.
			most := tc.perReload * (1 + maxSelfReloads)
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
			if !strings.Contains(said, "plugin ./tools/gen/plugin.mjs ") || !strings.Contains(said, " "+filepath.FromSlash(tc.file)+" ") {
				t.Errorf("vxd status's pluginEditsIgnored = %q, want the plugin and %s named", said, tc.file)
			}
		})
	}
}
