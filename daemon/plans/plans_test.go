package plans

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

func TestClaimRefusals(t *testing.T) {
	s := NewStore()
	clock := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	p := s.Issue(&Plan{}, 5*time.Minute)
	if !strings.HasPrefix(p.ID, "plan-"+s.instance+"-") || !p.Expires.Equal(clock.Add(5*time.Minute)) {
		t.Fatalf("issued %+v", p)
	}

	got, err := s.Claim(p.ID)
	if err != nil || got != p {
		t.Fatalf("claim: %v", err)
	}
	if _, err := s.Claim(p.ID); err == nil || !strings.Contains(err.Error(), "being applied") {
		t.Errorf("second claim while running: %v", err)
	}
	s.Release(p)
	if _, err := s.Claim(p.ID); err != nil {
		t.Errorf("claim after release: %v", err)
	}
	s.Applied(p, "r123")
	if _, err := s.Claim(p.ID); err == nil || !strings.Contains(err.Error(), "already applied (run r123)") {
		t.Errorf("claim after applied: %v", err)
	}

	old := s.Issue(&Plan{}, 5*time.Minute)
	clock = clock.Add(7*time.Minute + 30*time.Second)
	if _, err := s.Claim(old.ID); err == nil || !strings.Contains(err.Error(), "expired 2m30s ago: it was made 7m30s ago and plans last 5m0s (mcp.planTtl)") {
		t.Errorf("expired: %v", err)
	}

	other := NewStore().Issue(&Plan{}, time.Minute)
	if _, err := s.Claim(other.ID); err == nil || !strings.Contains(err.Error(), "made by an earlier vxd") {
		t.Errorf("another daemon's plan: %v", err)
	}
	if _, err := s.Claim("plan-" + s.instance + "-feedface"); err == nil || !strings.Contains(err.Error(), "unknown to this vxd") {
		t.Errorf("unknown plan: %v", err)
	}
	for _, bad := range []string{"", "abc", "plan-", "plan-xyz"} {
		if _, err := s.Claim(bad); err == nil || !strings.Contains(err.Error(), "is not a plan id") {
			t.Errorf("Claim(%q): %v", bad, err)
		}
	}
}

func TestStoreBounded(t *testing.T) {
	s := NewStore()
	first := s.Issue(&Plan{}, time.Minute)
	for range maxPlans {
		s.Issue(&Plan{}, time.Minute)
	}
	if len(s.plans) != maxPlans {
		t.Errorf("%d plans kept, want %d", len(s.plans), maxPlans)
	}
	if _, err := s.Claim(first.ID); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("the oldest plan should have been dropped: %v", err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@vx", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMoved edits each prerequisite of a real workspace in a real git
// repository and checks that the difference is named.
func TestMoved(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: vx's plans record git HEAD")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "vx.workspace.json"), `{"projects":["pkgs/*"],"tasks":{"build":{}}}`)
	write(t, filepath.Join(root, "pkgs/one/package.json"), `{"name":"one","scripts":{"build":"echo one"}}`)
	write(t, filepath.Join(root, ".vx/ignored"), "vx state")
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "vx.workspace.json", "pkgs")
	git(t, root, "commit", "-qm", "one")
	ctx := context.Background()
	plan := &wire.Plan{Tasks: []wire.PlanTask{{TaskID: "one#build", Key: "k1"}}}
	base, err := prerequisites(ctx, root, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(base.ConfigFiles) != 2 || base.GitHead == "" || base.GitDirty != "" || base.Lock != "" || base.TaskKeys["one#build"] != "k1" {
		t.Fatalf("prerequisites %+v", base)
	}
	same, _ := prerequisites(ctx, root, plan)
	if moved := moved(base, same); len(moved) != 0 {
		t.Fatalf("nothing changed, yet moved: %v", moved)
	}
	check := func(name string, want ...string) *wire.PlanPrerequisites {
		t.Helper()
		now, err := prerequisites(ctx, root, plan)
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(moved(base, now), "; ")
		for _, w := range want {
			if !strings.Contains(joined, w) {
				t.Errorf("%s: moved %q lacks %q", name, joined, w)
			}
		}
		return now
	}

	write(t, filepath.Join(root, "pkgs/one/package.json"), `{"name":"one","scripts":{"build":"echo changed"}}`)
	check("a manifest edit", "pkgs/one/package.json changed", "the uncommitted changes differ (0 changed or untracked files when planned, 1 now)")
	git(t, root, "commit", "-qam", "two")
	check("a commit", "git HEAD moved from", "pkgs/one/package.json changed")
	write(t, filepath.Join(root, "vx.lock"), "{}")
	check("a new vx.lock", "vx.lock was added")
	write(t, filepath.Join(root, "pkgs/two/package.json"), `{"name":"two"}`)
	check("a new project", "pkgs/two/package.json was added")

	plan.Tasks = []wire.PlanTask{{TaskID: "one#build", Key: "k2"}, {TaskID: "two#build", Key: "k3"}}
	check("moved keys", "one#build's key changed (k1 → k2)", "two#build would now run too")
}
