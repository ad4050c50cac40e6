//go:build !windows

package live_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestVxdReinfersWhenAMatchedLinksTargetChanges: a plugin's matched file
// that is a link (packages/b/vx-ref.json → shared/b-ref.json) has its
// content edited where the link points, in a directory vxd watches for
// nothing else: vxd re-infers, and an agent's listTasks gives the new
// command, not the one inferred before the edit.
func TestVxdReinfersWhenAMatchedLinksTargetChanges(t *testing.T) {
	root := pluginJournalWorkspace(t)
	startDaemon(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := shimSession(ctx, t, root, nil)
	defer cs.Close()
	tasks := func() string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTasks", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("listTasks: %v", err)
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	if got := tasks(); !strings.Contains(got, "echo uno") {
		t.Fatalf("b#ref before the edit is not the link target's: %s", got)
	}
	harness.WriteFile(t, filepath.Join(root, "shared", "b-ref.json"), refDecl("dos"))
	// vxd reloads after its debounce; an answer that never changes fails.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		got := tasks()
		if strings.Contains(got, "echo dos") && !strings.Contains(got, "echo uno") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("vxd still serves the task inferred before the link's target was edited: %s", got)
		}
	}
}
