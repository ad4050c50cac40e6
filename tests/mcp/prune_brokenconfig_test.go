//go:build !windows

package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestPruneUnconfirmedWhenConfigBroken: a vxd that started on a
// configuration that does not load cannot tell whether mcp.confirm (or
// mcp.requirePlan) is on, so pruneCache deletes nothing without a plan,
// rather than deleting as if neither were.
func TestPruneUnconfirmedWhenConfigBroken(t *testing.T) {
	root := confirmWorkspace(t, "")
	vxRun(t, root, nil, 0, "lint")
	cfg := filepath.Join(root, "vx.workspace.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, cfg, string(b)+"\n{ not json")
	cs := eraTransports[2].connect(t, root, nil)
	callRefused(t, cs, "pruneCache", map[string]any{"maxSize": "1B", "dryRun": false}, "only as planned")
	var plan prunePlanOut
	callOK(t, cs, "pruneCache", map[string]any{"maxSize": "1B"}).structured(t, &plan)
	if strings.Join(plan.tasks(), " ") != "one#lint two#lint" {
		t.Errorf("after the refused prune a dry run would evict %v; want both lint entries still there", plan.tasks())
	}
}
