package plans

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestApprove: a plan waits for a person's approval; approving an
// expired, applied or unknown plan is refused; a plan that expires
// unapproved ends the wait saying so; Apply under NeedApproval refuses
// an unapproved plan.
func TestApprove(t *testing.T) {
	s := NewStore()
	p := s.Issue(&Plan{Does: "Run 1 task(s)"}, time.Minute)
	if got := s.Pending(); len(got) != 1 || got[0].PlanID != p.ID || got[0].Kind != kindRun {
		t.Fatalf("pending %+v", got)
	}
	if _, err := s.claim(p.ID, kindRun, true); err == nil || !strings.Contains(err.Error(), "awaits a person's approval") {
		t.Errorf("claim of an unapproved plan under mcp.confirm: %v", err)
	}
	if _, err := s.claim(p.ID, kindPrune, false); err == nil || !strings.Contains(err.Error(), "is a runTasks plan") {
		t.Errorf("claim as another kind: %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.WaitApproved(context.Background(), p) }()
	b, err := s.Approve(p.ID, ByCLI)
	if err != nil || b.ApprovedBy != ByCLI {
		t.Fatalf("approve: %+v %v", b, err)
	}
	if err := <-waited; err != nil {
		t.Errorf("the wait ended with %v", err)
	}
	if b, err := s.Approve(p.ID, ByPage); err != nil || b.ApprovedBy != ByCLI {
		t.Errorf("approving again: %+v %v (the first approval stands)", b, err)
	}
	if len(s.Pending()) != 0 {
		t.Errorf("an approved plan is still pending")
	}
	c, err := s.claim(p.ID, kindRun, true)
	if err != nil {
		t.Fatalf("claim of an approved plan: %v", err)
	}
	s.Applied(c, "r1")
	if _, err := s.Approve(p.ID, ByCLI); err == nil || !strings.Contains(err.Error(), "already applied") {
		t.Errorf("approving an applied plan: %v", err)
	}

	clock := time.Now()
	s.now = func() time.Time { return clock }
	old := s.Issue(&Plan{}, 10*time.Millisecond)
	if err := s.WaitApproved(context.Background(), old); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("waiting on a plan that expires: %v", err)
	}
	clock = clock.Add(time.Second)
	if _, err := s.Approve(old.ID, ByCLI); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("approving an expired plan: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.WaitApproved(ctx, s.Issue(&Plan{}, time.Minute)); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("a cancelled wait: %v", err)
	}
	if _, err := s.Approve("plan-"+s.instance+"-00", ByCLI); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("approving an unknown plan: %v", err)
	}
}
