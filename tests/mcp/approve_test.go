//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// confirmWorkspace is the policy workspace under mcp.confirm (plus
// extra, more mcp settings) with a task, one#mark, that writes one.marked
// at the root: the file says whether the task ran.
func confirmWorkspace(t *testing.T, extra string) string {
	t.Helper()
	root := workspace(t, "policy")
	harness.WriteFile(t, filepath.Join(root, "pkgs/one/package.json"),
		`{ "name": "one", "scripts": { "prep": "echo one prepared", "test": "echo one tested", "lint": "echo one linted", "mark": "echo marked > ../../one.marked" } }`)
	harness.WriteFile(t, filepath.Join(root, ".gitignore"), "*.napping\n*.marked\n")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"),
		`{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"nap":{"cache":false},"mark":{"cache":false}},"mcp":{"confirm":true`+extra+`}}`)
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-qm", "confirm")
	return root
}

func marked(root string) bool {
	_, err := os.Stat(filepath.Join(root, "one.marked"))
	return err == nil
}

// waitingRun calls runTasks {planId} with a progress token in the
// background; its answer arrives on the channel.
func waitingRun(cs *mcp.ClientSession, planID, token string) <-chan answerOrErr {
	done := make(chan answerOrErr, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"planId": planID}}
		p.SetProgressToken(token)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, p)
		done <- answerOrErr{res, err}
	}()
	return done
}

type answerOrErr struct {
	res *mcp.CallToolResult
	err error
}

func (a answerOrErr) text() string {
	var s string
	if a.res != nil {
		for _, c := range a.res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				s += tc.Text
			}
		}
	}
	return s
}

// noRedirect is an HTTP client that keeps a login's cookie to itself.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// pageLogin opens the status page address u and returns the login
// cookie it sets.
func pageLogin(t *testing.T, u string) *http.Cookie {
	t.Helper()
	resp, err := noRedirect.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("logging in at the page: %s, cookies %v", resp.Status, resp.Cookies())
	}
	return resp.Cookies()[0]
}

// httpDo sends one request to the daemon on port and returns the status
// and body.
func httpDo(t *testing.T, method string, port int, path string, set func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	if set != nil {
		set(req)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestApprovalIsAPersons: under mcp.confirm a client that cannot ask
// (no elicitation) gets nothing run by planTasks then runTasks {planId}:
// the call says where a person approves and waits; nothing reachable with
// the MCP bearer token approves (the approval routes, a page login made
// with the token, the tools); `vx approve PLAN` in a terminal does, and
// the waiting call runs the plan.
func TestApprovalIsAPersons(t *testing.T) {
	for _, tr := range eraTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := confirmWorkspace(t, "")
			var progress progressLog
			cs := tr.connect(t, root, &mcp.ClientOptions{ProgressNotificationHandler: progress.handle})
			d := runningDaemon(t, root)

			var p struct {
				planOut
				ApproveWith string `json:"approveWith"`
			}
			callOK(t, cs, "planTasks", map[string]any{"tasks": []string{"one#mark"}}).structured(t, &p)
			pageURL := fmt.Sprintf("http://127.0.0.1:%d/", d.Port)
			for _, want := range []string{"vx approve " + p.PlanID, pageURL} {
				if !strings.Contains(p.ApproveWith, want) {
					t.Errorf("planTasks' approveWith %q does not name %q", p.ApproveWith, want)
				}
			}
			done := waitingRun(cs, p.PlanID, "approve-1")
			harness.WaitFor(t, 30*time.Second, "a progress notification naming where to approve", func() bool {
				for _, n := range progress.all() {
					if strings.Contains(n.Message, "vx approve "+p.PlanID) && strings.Contains(n.Message, pageURL) {
						return true
					}
				}
				return false
			})
			if marked(root) {
				t.Fatal("the task ran before anyone approved its plan")
			}

			tokenCannotApprove(t, cs, d, p.PlanID)
			select {
			case a := <-done:
				t.Fatalf("runTasks answered before a person approved: %v %s", a.err, a.text())
			default:
			}
			if marked(root) {
				t.Fatal("the task ran after approval attempts with the bearer token")
			}

			if r := run(t, root, nil, vxBin, "approve"); r.Code != 0 || !strings.Contains(r.Stdout, p.PlanID) || !strings.Contains(r.Stdout, "one#mark (off): echo marked") {
				t.Errorf("vx approve (the plans waiting)\n%s", r)
			}
			r := run(t, root, nil, vxBin, "approve", p.PlanID)
			if r.Code != 0 || !strings.Contains(r.Stdout, "approved "+p.PlanID) {
				t.Fatalf("vx approve\n%s", r)
			}
			a := <-done
			if a.err != nil || a.res.IsError {
				t.Fatalf("runTasks after vx approve: %v %s", a.err, a.text())
			}
			if !marked(root) {
				t.Error("the approved plan's task did not run")
			}
			if r := run(t, root, nil, vxBin, "approve", p.PlanID); r.Code != 1 || !strings.Contains(r.Stderr, "already applied") {
				t.Errorf("approving an applied plan: want exit 1 saying so\n%s", r)
			}
		})
	}
}

// tokenCannotApprove tries to approve plan id with what an MCP client
// holds (the bearer token): the approval routes, a status page login
// made with the token, the approver login, the tool list.
func tokenCannotApprove(t *testing.T, cs *mcp.ClientSession, d *discovery, id string) {
	t.Helper()
	bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+d.Token) }
	if code, body := httpDo(t, http.MethodPost, d.Port, "/approve/"+id, bearer); code != http.StatusUnauthorized || !strings.Contains(body, "bearer token never approves") {
		t.Errorf("POST /approve/PLAN with the bearer token: %d %s", code, body)
	}
	for _, key := range []string{"X-Vx-Approve-Key", "Authorization"} {
		if code, body := httpDo(t, http.MethodPost, d.Port, "/approve/"+id, func(r *http.Request) { r.Header.Set(key, d.Token) }); code != http.StatusUnauthorized {
			t.Errorf("POST /approve/PLAN with the token as %s: %d %s", key, code, body)
		}
	}
	cookie := pageLogin(t, fmt.Sprintf("http://127.0.0.1:%d/?token=%s", d.Port, d.Token))
	own := fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	withCookie := func(r *http.Request) { r.AddCookie(cookie); r.Header.Set("Origin", own) }
	if code, body := httpDo(t, http.MethodPost, d.Port, "/approve/"+id, withCookie); code != http.StatusUnauthorized {
		t.Errorf("POST /approve/PLAN with a page login made with the token: %d %s", code, body)
	}
	code, body := httpDo(t, http.MethodGet, d.Port, "/api/approvals", withCookie)
	if code != http.StatusOK || !strings.Contains(body, id) || !strings.Contains(body, `"canApprove":false`) {
		t.Errorf("GET /api/approvals with a token login: want the plan listed and canApprove false: %d %s", code, body)
	}
	if code, _ := httpDo(t, http.MethodGet, d.Port, "/?approver="+d.Token, nil); code != http.StatusUnauthorized {
		t.Errorf("an approver login with the token: %d", code)
	}
	tools := toolNames(t, cs)
	if _, ok := tools["approvePlan"]; ok {
		t.Error("approvePlan is an MCP tool")
	}
}

// TestApproveOnThePage: the status page approves with the approval key
// (`vx approve --page` hands it to the page in the address's fragment),
// from its own origin only; a plan so approved runs at once.
func TestApproveOnThePage(t *testing.T) {
	root := confirmWorkspace(t, "")
	cs := eraTransports[0].connect(t, root, nil)
	d := runningDaemon(t, root)
	p := planTasks(t, cs, "one#mark")

	login, key := approverPage(t, root)
	resp, err := noRedirect.Get(login)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "/#approver="+key || len(resp.Cookies()) != 1 {
		t.Fatalf("the approver login: %s to %q with cookies %v; want the page with the key in the fragment", resp.Status, loc, resp.Cookies())
	}
	cookie := resp.Cookies()[0]
	own := fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	withKey := func(origin string) func(*http.Request) {
		return func(r *http.Request) {
			r.AddCookie(cookie)
			r.Header.Set("X-Vx-Approve-Key", key)
			if origin != "" {
				r.Header.Set("Origin", origin)
			}
		}
	}
	code, body := httpDo(t, http.MethodGet, d.Port, "/api/approvals", withKey(""))
	if code != http.StatusOK || !strings.Contains(body, p.PlanID) || !strings.Contains(body, `"canApprove":true`) || !strings.Contains(body, "one#mark") {
		t.Fatalf("GET /api/approvals with the key: %d %s", code, body)
	}
	// Another origin never approves, the key or not.
	if code, body := httpDo(t, http.MethodPost, d.Port, "/approve/"+p.PlanID, withKey("http://127.0.0.1:1")); code == http.StatusOK {
		t.Errorf("POST /approve/PLAN from another origin was accepted: %s", body)
	}
	if marked(root) {
		t.Fatal("the task ran before its approval")
	}
	code, body = httpDo(t, http.MethodPost, d.Port, "/approve/"+p.PlanID, withKey(own))
	if code != http.StatusOK || !strings.Contains(body, `"approvedBy":"status page"`) {
		t.Fatalf("POST /approve/PLAN from the page: %d %s", code, body)
	}
	callOK(t, cs, "runTasks", map[string]any{"planId": p.PlanID})
	if !marked(root) {
		t.Error("the plan approved on the page did not run")
	}
}

// TestApprovalExpires: a plan no person approves expires: the waiting
// runTasks {planId} ends saying so, nothing runs, and vx approve refuses
// it.
func TestApprovalExpires(t *testing.T) {
	root := confirmWorkspace(t, `,"planTtl":"10s"`)
	cs := eraTransports[2].connect(t, root, nil)
	p := planTasks(t, cs, "one#mark")
	done := waitingRun(cs, p.PlanID, "expire-1")
	a := <-done // the plan's life: 10s
	if a.err != nil || !a.res.IsError || !strings.Contains(a.text(), "expired") || !strings.Contains(a.text(), "before a person approved it") {
		t.Fatalf("runTasks {planId} of a plan nobody approved: %v %s", a.err, a.text())
	}
	r := run(t, root, nil, vxBin, "approve", p.PlanID)
	if r.Code != 1 || !strings.Contains(r.Stderr, "expired") {
		t.Errorf("vx approve of an expired plan: want exit 1 saying it expired\n%s", r)
	}
	if marked(root) {
		t.Error("an expired plan ran")
	}
}

// TestApprovedPlanIsNotAskedAgain: a client that can ask is not asked
// about a plan a person already approved with vx approve: it runs.
func TestApprovedPlanIsNotAskedAgain(t *testing.T) {
	root := confirmWorkspace(t, "")
	a := &asker{answers: []*mcp.ElicitResult{{Action: "decline"}}}
	cs := eraTransports[0].connect(t, root, &mcp.ClientOptions{ElicitationHandler: a.handle})
	p := planTasks(t, cs, "one#mark")
	if r := run(t, root, nil, vxBin, "approve", p.PlanID); r.Code != 0 {
		t.Fatalf("vx approve\n%s", r)
	}
	callOK(t, cs, "runTasks", map[string]any{"planId": p.PlanID})
	if !marked(root) {
		t.Error("the approved plan did not run")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.messages) != 0 {
		t.Errorf("the user was asked again about an approved plan: %q", a.messages)
	}
}

// TestConfirmOutside: with mcp.confirm "outside" a client that answers
// every elicitation with yes (as a client an agent wrote itself would)
// is never asked: its plan waits for vx approve like any other.
func TestConfirmOutside(t *testing.T) {
	for _, tr := range []int{0, 2} {
		tr := eraTransports[tr]
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := confirmWorkspace(t, "")
			harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"),
				`{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"nap":{"cache":false},"mark":{"cache":false}},"mcp":{"confirm":"outside"}}`)
			gitIn(t, root, "commit", "-qam", "outside")
			yes := &asker{answers: []*mcp.ElicitResult{
				{Action: "accept", Content: map[string]any{"confirm": true}},
				{Action: "accept", Content: map[string]any{"confirm": true}},
			}}
			var progress progressLog
			cs := tr.connect(t, root, &mcp.ClientOptions{ElicitationHandler: yes.handle, ProgressNotificationHandler: progress.handle})
			callRefused(t, cs, "runTasks", map[string]any{"tasks": []string{"one#mark"}}, `approvals only outside MCP (mcp.confirm "outside")`)
			p := planTasks(t, cs, "one#mark")
			done := waitingRun(cs, p.PlanID, "outside-1")
			harness.WaitFor(t, 30*time.Second, "a progress notification naming vx approve", func() bool {
				for _, n := range progress.all() {
					if strings.Contains(n.Message, "vx approve "+p.PlanID) {
						return true
					}
				}
				return false
			})
			if marked(root) {
				t.Fatal("the task ran before a person approved it")
			}
			if r := run(t, root, nil, vxBin, "approve", p.PlanID); r.Code != 0 {
				t.Fatalf("vx approve\n%s", r)
			}
			if a := <-done; a.err != nil || a.res.IsError || !marked(root) {
				t.Fatalf("runTasks after vx approve: %v %s", a.err, a.text())
			}
			yes.mu.Lock()
			defer yes.mu.Unlock()
			if len(yes.messages) != 0 {
				t.Errorf("the client was asked under mcp.confirm \"outside\": %q", yes.messages)
			}
		})
	}
}

// TestApproveKeyIsNotInTheWorkspace: the approval key is kept out of the
// workspace, which an agent's file tools usually cover, so that reading
// the workspace does not hand an agent the means to approve its own plans.
func TestApproveKeyIsNotInTheWorkspace(t *testing.T) {
	root := confirmWorkspace(t, "")
	eraTransports[0].connect(t, root, nil)
	runningDaemon(t, root)
	_, key := approverPage(t, root)
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !e.Type().IsRegular() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), key) {
			t.Errorf("%s holds the approval key", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// approverPage is what `vx approve --page` prints for root: the status
// page address that logs a browser in to approve, and the approval key it
// carries.
func approverPage(t *testing.T, root string) (url, key string) {
	t.Helper()
	r := run(t, root, nil, vxBin, "approve", "--page", "--format", "json")
	var out struct {
		PageLogin string `json:"pageLogin"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || !strings.Contains(out.PageLogin, "?approver=") {
		t.Fatalf("vx approve --page\n%s", r)
	}
	return out.PageLogin, out.PageLogin[strings.Index(out.PageLogin, "?approver=")+len("?approver="):]
}
