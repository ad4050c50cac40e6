//go:build !windows

package live_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// TestReloadNamesFailedPlugins: when an edit declares a plugin that then
// fails, the reload loaded, and the feed's model.reloaded and vxd status
// say which plugin failed rather than a bare "reloaded" / "ok".
func TestReloadNamesFailedPlugins(t *testing.T) {
	root := demo(t)
	d := startDaemon(t, root)
	fr := readFeed(dialFeed(t, d, bearerHeader(d.token), nil))

	cfg := filepath.Join(root, "vx.workspace.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "{", "{\n  \"plugins\": [\"./tools/missing.mjs\"],", 1)
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []wire.Event
	timeout := time.After(time.Minute) // only keeps a broken feed from hanging the test
	for reloaded := false; !reloaded; {
		select {
		case e := <-fr.events:
			got = append(got, e)
			reloaded = e.Type == wire.EventModelReloaded
			if reloaded && !strings.Contains(e.Error, "1 plugin failed: ./tools/missing.mjs") {
				t.Errorf("model.reloaded after the edit: %+v; want it to name the failed plugin", e)
			}
		case <-fr.done:
			t.Fatalf("the feed ended before model.reloaded: %v\n%s", fr.err, describe(got))
		case <-timeout:
			t.Fatalf("no model.reloaded after the edit\n%s", describe(got))
		}
	}
	r := run(t, root, vxdBin, "status")
	if r.Code != 0 || !strings.Contains(r.Stdout, "vx.workspace.json") || !strings.Contains(r.Stdout, "loaded; 1 plugin failed: ./tools/missing.mjs") {
		t.Errorf("vxd status after the reload:\n%s", r)
	}
}
