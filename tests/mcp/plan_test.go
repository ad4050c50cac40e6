//go:build !windows

package mcp_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

type planOut struct {
	PlanID        string    `json:"planId"`
	ExpiresAt     time.Time `json:"expiresAt"`
	Prerequisites struct {
		ConfigFiles map[string]string `json:"configFiles"`
		Lock        string            `json:"lock"`
		GitHead     string            `json:"gitHead"`
		GitDirty    string            `json:"gitDirty"`
		TaskKeys    map[string]string `json:"taskKeys"`
	} `json:"prerequisites"`
	Plan struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	} `json:"plan"`
}

func planTasks(t *testing.T, cs *mcp.ClientSession, tasks ...string) planOut {
	t.Helper()
	var p planOut
	callOK(t, cs, "planTasks", map[string]any{"tasks": tasks}).structured(t, &p)
	if p.PlanID == "" {
		t.Fatalf("planTasks answered no planId")
	}
	return p
}

func gitIn(t *testing.T, root string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@vx", "-c", "user.name=t"}, args...)...)
	cmd.Dir = root
	cmd.Env = baseEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestPlanThenApply: planTasks issues a plan with its prerequisites;
// runTasks {planId} runs exactly it once, and refuses (running nothing)
// a plan whose config file, vx.lock, git HEAD or task key moved.
func TestPlanThenApply(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)

	p := planTasks(t, cs, "test")
	if d := time.Until(p.ExpiresAt); d < 4*time.Minute || d > 5*time.Minute+time.Second {
		t.Errorf("expiresAt %v is not about 5m away (mcp.planTtl default)", p.ExpiresAt)
	}
	pr := p.Prerequisites
	if pr.ConfigFiles["vx.workspace.json"] == "" || pr.ConfigFiles["pkgs/one/package.json"] == "" || pr.GitHead == "" || pr.Lock != "" {
		t.Errorf("prerequisites %+v", pr)
	}
	var planned []string
	for _, tk := range p.Plan.Tasks {
		planned = append(planned, tk.TaskID)
		if pr.TaskKeys[tk.TaskID] == "" {
			t.Errorf("no key recorded for planned %s", tk.TaskID)
		}
	}
	slices.Sort(planned)
	if strings.Join(planned, " ") != "one#prep one#test two#prep two#test" {
		t.Fatalf("planned %v", planned)
	}

	var out runTasksOut
	callOK(t, cs, "runTasks", map[string]any{"planId": p.PlanID}).structured(t, &out)
	if out.ExitCode != 0 || strings.Join(out.ids(), " ") != strings.Join(planned, " ") {
		t.Fatalf("runTasks {planId} ran %v (exit %d), planned %v", out.ids(), out.ExitCode, planned)
	}
	runs := runsRecorded(t, root)
	callRefused(t, cs, "runTasks", map[string]any{"planId": p.PlanID}, "already applied")
	callRefused(t, cs, "runTasks", map[string]any{"planId": planTasks(t, cs, "lint").PlanID, "tasks": []string{"lint"}}, `argument "tasks"`)

	refusals := []struct {
		name  string
		edit  func()
		moved string
	}{
		{"a config file", func() {
			harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"nap":{"cache":false},"more":{}}}`)
		}, "vx.workspace.json changed"},
		{"a task's key", func() {
			harness.WriteFile(t, filepath.Join(root, "pkgs/one/src/one.txt"), "edited after the plan\n")
		}, "one#test's key changed"},
		{"git HEAD", func() { gitIn(t, root, "commit", "-qam", "moved on") }, "git HEAD moved from"},
		{"vx.lock", func() {
			if r := run(t, root, nil, vxBin, "lock"); r.Code != 0 {
				t.Fatalf("vx lock\n%s", r)
			}
		}, "vx.lock was added"},
	}
	for _, rf := range refusals {
		t.Run(rf.name, func(t *testing.T) {
			p := planTasks(t, cs, "test")
			rf.edit()
			a := callRefused(t, cs, "runTasks", map[string]any{"planId": p.PlanID}, rf.moved)
			if !strings.Contains(a.text, "nothing ran") {
				t.Errorf("the refusal does not say nothing ran: %s", a.text)
			}
			if now := runsRecorded(t, root); len(now) != len(runs) {
				t.Errorf("a refused plan ran something: %d runs, %d before", len(now), len(runs))
			}
		})
	}
}

// TestRequirePlan: with mcp.requirePlan runTasks takes only a planId;
// mcp.planTtl sets the plans' lifetime.
func TestRequirePlan(t *testing.T) {
	root := workspace(t, "policy")
	setRunPolicy(t, root, `,"mcp":{"requirePlan":true,"planTtl":"90s"}`)
	gitIn(t, root, "commit", "-qam", "require plans")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	callRefused(t, cs, "runTasks", map[string]any{"tasks": []string{"lint"}}, "mcp.requirePlan")
	if n := len(runsRecorded(t, root)); n != 0 {
		t.Fatalf("%d runs recorded after a refusal", n)
	}
	p := planTasks(t, cs, "lint")
	if d := time.Until(p.ExpiresAt); d < 80*time.Second || d > 91*time.Second {
		t.Errorf("expiresAt %v is not about 90s away (mcp.planTtl 90s)", p.ExpiresAt)
	}
	var out runTasksOut
	callOK(t, cs, "runTasks", map[string]any{"planId": p.PlanID}).structured(t, &out)
	if strings.Join(out.ids(), " ") != "one#lint two#lint" {
		t.Errorf("ran %v", out.ids())
	}
}

// TestPlanOfAnEarlierDaemon: plans live in vxd's memory; a daemon started
// since refuses an old plan id by saying so.
func TestPlanOfAnEarlierDaemon(t *testing.T) {
	root := workspace(t, "policy")
	cs := connectShim(t, root, nil)
	p := planTasks(t, cs, "lint")
	stopDaemon(t, root)
	a := callRefused(t, cs, "runTasks", map[string]any{"planId": p.PlanID}, "made by an earlier vxd")
	if !strings.Contains(a.text, "call planTasks again") {
		t.Errorf("the refusal says not what to do: %s", a.text)
	}
}
