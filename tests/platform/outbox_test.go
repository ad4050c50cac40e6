//go:build !windows

package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/platformpush"
	"github.com/vzn/vx/daemon/workspace"
)

// A run kept in the outbox under a workspace the token may not push to
// (the workspace slug changed, the token is pinned to the new one) stays
// there with a warning, and the runs after it are still delivered: the
// outbox never stalls behind it.
func TestOutboxDoesNotStallBehindAnotherWorkspacesRun(t *testing.T) {
	ts := seed(t)
	pinned, _ := ts.p.token(t, "acme", "ingest", "api")
	root := t.TempDir()
	old, cur := runsOfWeb("web")[0], runsOfWeb("api")[1]
	old.RunID, cur.RunID = "e0e0e0e0e0e0", "e1e1e1e1e1e1"
	for i, r := range []any{old, cur} {
		b, _ := json.Marshal(r)
		id := []string{old.RunID, cur.RunID}[i]
		if err := platformpush.Keep(root, id, b); err != nil {
			t.Fatal(err)
		}
		// Oldest first: the other workspace's run is ahead.
		when := time.Now().Add(time.Duration(i-2) * time.Minute)
		os.Chtimes(filepath.Join(platformpush.OutboxDir(root), id+".json"), when, when)
	}
	tgt, ok, err := platformpush.Resolve(&workspace.PlatformConfig{URL: ts.p.srv.URL, Workspace: "api"}, []string{platformpush.EnvToken + "=" + pinned})
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	var warn bytes.Buffer
	rep, err := platformpush.Flush(context.Background(), root, tgt, &warn)
	if err != nil || rep.Sent != 1 || rep.Kept != 1 {
		t.Fatalf("flush: %+v %v\n%s", rep, err, warn.String())
	}
	if _, err := os.Stat(filepath.Join(platformpush.OutboxDir(root), old.RunID+".json")); err != nil {
		t.Fatalf("the other workspace's run left the outbox: %v", err)
	}
	if _, err := os.Stat(filepath.Join(platformpush.OutboxDir(root), cur.RunID+".json")); !os.IsNotExist(err) {
		t.Fatalf("the delivered run is still in the outbox: %v", err)
	}
	if got := call(t, ts.p.srv.URL, ts.acme, "get_run", map[string]any{"runId": cur.RunID, "workspace": "api"}).Struct; get(t, got, "found") != true {
		t.Fatalf("the run behind was not stored: %v", got)
	}
}
