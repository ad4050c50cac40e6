package browser_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestApproveOnThePageInChromium: under mcp.confirm, a plan an agent made
// (the official SDK, no elicitation) waits on the status page; a login
// made with the token has no Approve button, the one `vx approve --page`
// prints has, and clicking it lets runTasks {planId} run the plan.
func TestApproveOnThePageInChromium(t *testing.T) {
	chromium, here := browserReady(t)
	bin := t.TempDir()
	root := repoRoot(t)
	run(t, root, "go", "build", "-o", filepath.Join(bin, "vx"), "./cmd/vx")
	run(t, root, "go", "build", "-o", filepath.Join(bin, "vxd"), "./cmd/vxd")
	ws := filepath.Join(t.TempDir(), "demo")
	run(t, root, "cp", "-r", filepath.Join(root, "examples", "demo"), ws)
	cfg := filepath.Join(ws, "vx.workspace.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"mcp": { "run": ["build", "test", "lint"] }`, `"mcp": { "run": ["build", "test", "lint"], "confirm": true }`, 1)
	if edited == string(b) {
		t.Fatal("the demo's mcp setting moved: update this test's edit")
	}
	harness.WriteFile(t, cfg, edited)
	vx, vxd := filepath.Join(bin, "vx"), filepath.Join(bin, "vxd")
	run(t, ws, vxd, "start")
	t.Cleanup(func() { exec.Command(vxd, "stop", "--root", ws).Run() })
	var st struct {
		Port int    `json:"port"`
		URL  string `json:"url"`
	}
	if err := json.Unmarshal([]byte(run(t, ws, vxd, "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(run(t, ws, vxd, "token"))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "vx-browser-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: st.URL, HTTPClient: harness.BearerClient(token), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "planTasks", Arguments: map[string]any{"tasks": []string{"lint"}}})
	if err != nil || res.IsError {
		t.Fatalf("planTasks: %v %+v", err, res)
	}
	var plan struct {
		PlanID string `json:"planId"`
	}
	pb, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(pb, &plan); err != nil || plan.PlanID == "" {
		t.Fatalf("planTasks answered no planId: %s", pb)
	}
	var login struct {
		PageLogin string `json:"pageLogin"`
	}
	if err := json.Unmarshal([]byte(run(t, ws, vx, "approve", "--page", "--format", "json")), &login); err != nil || login.PageLogin == "" {
		t.Fatalf("vx approve --page: %v", err)
	}

	shot := filepath.Join(t.ArtifactDir(), "approve-page.png")
	cmd := exec.CommandContext(ctx, "node", "approve.mjs")
	cmd.Dir = here
	cmd.Env = append(os.Environ(), "VXD_URL=http://127.0.0.1:"+strconv.Itoa(st.Port), "VXD_TOKEN="+token, "PAGE_LOGIN="+login.PageLogin,
		"PLAN_ID="+plan.PlanID, "SCREENSHOT="+shot, "CHROMIUM="+chromium)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("browser test: %v\n%s", err, out)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"planId": plan.PlanID}})
	if err != nil || res.IsError {
		t.Fatalf("runTasks {planId} after the page approved it: %v %+v", err, res)
	}
}
