package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// selfWriter is a Node plugin that counts its starts in starts.txt at the
// workspace root (its working directory) and, on every request, writes
// a file of its own beside its entry: WRITE is replaced by the statement
// that does it.
const selfWriter = `import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { names } from "./lib.mjs";
appendFileSync("starts.txt", "start\n");
const beside = (name) => new URL("./" + name, import.meta.url);
const req = JSON.parse(readFileSync(0, "utf8"));
WRITE;
const answer = (o) => process.stdout.write(JSON.stringify({ protocol: 1, ...o }));
if (req.stage === "describe") answer({ name: "gen", version: "1.0.0", stages: ["tasks"], globs: ["apps/*/package.json"] });
else answer({ tasks: names.map((n) => ({ project: "web", name: n, file: req.files[0], command: "true" })) });
`

// starts counts the plugin's starts so far.
func starts(t *testing.T, root string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "starts.txt"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "start\n")
}

// serveAndEdit serves root, whose plugin must load, and edits the file
// its globs match (adding a task); it answers the daemon, its status
// before the edit and the plugin's starts before it.
func serveAndEdit(t *testing.T, root string) (*running, *wire.Status, int) {
	t.Helper()
	r := serve(t, root, -1)
	before := r.status(t)
	if before.LastReload == nil || !before.LastReload.OK || len(before.LastReload.PluginsFailed) > 0 {
		t.Fatalf("the workspace did not load: %+v, %q", before.LastReload, before.ConfigError)
	}
	first := starts(t, root)
	edit(t, filepath.Join(root, "apps/web/package.json"), `"test": "true"`, `"test": "true", "lint": "true"`)
	return r, before, first
}

// TestAPluginWritingBesideItsEntryDoesNotReloadVXD: a plugin that writes
// a file of its own beside its entry each time it answers (a cache, a
// log) is asked once per change of what it reads, and its writes make
// vxd neither reload nor ask it again. After an edit of the file its
// globs match (one tasks request), an edit of vx.workspace.json reloads
// with the stored answers: the plugin has started once more in all. The
// wait ends at that reload, or as soon as the plugin has started more
// often than that (a reload loop); the bound only stops a hung test.
func TestAPluginWritingBesideItsEntryDoesNotReloadVXD(t *testing.T) {
	needNode(t)
	for _, tc := range []struct{ name, write string }{
		{"a cache", `writeFileSync(beside("cache.json"), JSON.stringify({ at: Date.now(), pid: process.pid, stage: req.stage }))`},
		{"a log", `appendFileSync(beside("plugin.log"), new Date().toISOString() + " " + process.pid + " " + req.stage + "\n")`},
		{"a cache in a directory of its own", `writeFileSync(beside("cache/answer.json"), JSON.stringify({ at: Date.now(), pid: process.pid }))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := `{"projects": ["apps/*"], "plugins": ["./tools/gen/plugin.mjs"]}`
			root := newWorkspace(t, config)
			testtree.Write(t, root, map[string]string{
				"tools/gen/plugin.mjs": strings.Replace(selfWriter, "WRITE", tc.write, 1),
				"tools/gen/lib.mjs":    genLib,
			})
			if err := os.MkdirAll(filepath.Join(root, "tools/gen/cache"), 0o755); err != nil {
				t.Fatal(err)
			}
			r, before, first := serveAndEdit(t, root)
			awaitReload(t, r, filepath.FromSlash("apps/web/package.json"), before.Tasks+1)
			want := first + 1
			edit(t, filepath.Join(root, "vx.workspace.json"), `"plugins"`, ` "plugins"`)
			for bound := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
				st := r.status(t)
				if st.LastReload != nil && st.LastReload.Trigger == "vx.workspace.json" || starts(t, root) > want {
					break
				}
				if time.Now().After(bound) {
					t.Fatalf("vxd did not reload on the edit of vx.workspace.json: last reload %+v", st.LastReload)
				}
			}
			if got := starts(t, root); got != want {
				t.Errorf("the plugin started %d times after the first load, want 1 (its tasks request after the edit): its own writes made vxd reload and ask it again (last reload %+v)", got-first, r.status(t).LastReload)
			}
		})
	}
}
