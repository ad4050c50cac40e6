//go:build !windows

package mcp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// prunePlanOut is the part of pruneCache's answer these tests read.
type prunePlanOut struct {
	DryRun      bool   `json:"dryRun"`
	PlanID      string `json:"planId"`
	ApproveWith string `json:"approveWith"`
	Evicted     []struct {
		Key    string `json:"key"`
		TaskID string `json:"taskId"`
	} `json:"evicted"`
	Entries int `json:"entries"`
}

func (p prunePlanOut) tasks() []string {
	var out []string
	for _, e := range p.Evicted {
		out = append(out, e.TaskID)
	}
	slices.Sort(out)
	return out
}

// TestPrunePlanApply: a pruneCache dry run is a plan; pruneCache {planId}
// evicts exactly its entries (not those that would qualify now), and a
// plan whose entries moved is refused, naming them, evicting nothing.
func TestPrunePlanApply(t *testing.T) {
	root := workspace(t, "policy")
	vxRun(t, root, nil, 0, "lint")
	cs := eraTransports[2].connect(t, root, nil)

	var plan prunePlanOut
	callOK(t, cs, "pruneCache", map[string]any{"maxSize": "1B"}).structured(t, &plan)
	if plan.PlanID == "" || !plan.DryRun || strings.Join(plan.tasks(), " ") != "one#lint two#lint" {
		t.Fatalf("the dry run: %+v", plan)
	}
	vxRun(t, root, nil, 0, "prep") // two more entries the same bounds would evict
	callRefused(t, cs, "pruneCache", map[string]any{"planId": plan.PlanID, "dryRun": false}, `argument "dryRun"`)
	var applied prunePlanOut
	callOK(t, cs, "pruneCache", map[string]any{"planId": plan.PlanID}).structured(t, &applied)
	if applied.DryRun || strings.Join(applied.tasks(), " ") != "one#lint two#lint" || applied.Entries != 2 {
		t.Errorf("applying the plan evicted %v leaving %d entries; want exactly the lint entries, the two prep entries left", applied.tasks(), applied.Entries)
	}
	callRefused(t, cs, "pruneCache", map[string]any{"planId": plan.PlanID}, "already applied")

	callOK(t, cs, "pruneCache", map[string]any{"maxSize": "1B"}).structured(t, &plan)
	if r := run(t, root, nil, vxBin, "cache", "prune", "--max-size", "1B"); r.Code != 0 {
		t.Fatalf("vx cache prune\n%s", r)
	}
	a := callRefused(t, cs, "pruneCache", map[string]any{"planId": plan.PlanID}, "no longer matches the cache, nothing was evicted")
	for _, e := range plan.Evicted {
		if !strings.Contains(a.text, e.Key+" ("+e.TaskID+") is no longer in the cache") {
			t.Errorf("the refusal does not name %s (%s):\n%s", e.Key, e.TaskID, a.text)
		}
	}
}

// TestPruneUnderConfirm: under mcp.confirm deleting takes a plan, and the
// plan waits for a person's approval (vx approve) before it evicts.
func TestPruneUnderConfirm(t *testing.T) {
	root := confirmWorkspace(t, "")
	vxRun(t, root, nil, 0, "lint")
	var progress progressLog
	cs := eraTransports[0].connect(t, root, &mcp.ClientOptions{ProgressNotificationHandler: progress.handle})
	callRefused(t, cs, "pruneCache", map[string]any{"maxSize": "1B", "dryRun": false}, "deletes cache entries only as planned")
	var plan prunePlanOut
	callOK(t, cs, "pruneCache", map[string]any{"maxSize": "1B"}).structured(t, &plan)
	if !strings.Contains(plan.ApproveWith, "vx approve "+plan.PlanID) {
		t.Errorf("approveWith %q does not name vx approve", plan.ApproveWith)
	}
	done := make(chan answerOrErr, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "pruneCache", Arguments: map[string]any{"planId": plan.PlanID}}
		p.SetProgressToken("prune-1")
		res, err := cs.CallTool(t.Context(), p)
		done <- answerOrErr{res, err}
	}()
	harness.WaitFor(t, 30*time.Second, "a progress notification naming vx approve", func() bool {
		for _, n := range progress.all() {
			if strings.Contains(n.Message, "vx approve "+plan.PlanID) {
				return true
			}
		}
		return false
	})
	if r := run(t, root, nil, vxBin, "cache", "prune", "--max-size", "1B", "--dry-run", "--format", "json"); !strings.Contains(r.Stdout, plan.Evicted[0].Key) {
		t.Fatalf("the cache lost the planned entries before approval\n%s", r)
	}
	if r := run(t, root, nil, vxBin, "approve", plan.PlanID); r.Code != 0 {
		t.Fatalf("vx approve\n%s", r)
	}
	a := <-done
	if a.err != nil || a.res.IsError || !strings.Contains(a.text(), plan.Evicted[0].Key) {
		t.Fatalf("pruneCache {planId} after approval: %v %s", a.err, a.text())
	}
}
