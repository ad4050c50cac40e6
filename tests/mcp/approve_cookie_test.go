//go:build !windows

package mcp_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestPageCookieNeverApproves: a browser sends a cookie of 127.0.0.1 to
// every port of 127.0.0.1 (cookies ignore ports), so another local user's
// server on another port that the person's browser visits receives the
// status page's login cookie. That cookie therefore never approves a
// plan, whatever Origin comes with it (a program sets any): only the
// approval key does, which the page keeps in its own origin's storage and
// sends as a header.
func TestPageCookieNeverApproves(t *testing.T) {
	root := confirmWorkspace(t, "")
	cs := eraTransports[0].connect(t, root, nil)
	d := runningDaemon(t, root)
	p := planTasks(t, cs, "one#mark")

	login, _ := approverPage(t, root)
	cookie := pageLogin(t, login)
	own := fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	code, body := httpDo(t, http.MethodPost, d.Port, "/approve/"+p.PlanID, func(r *http.Request) { r.AddCookie(cookie); r.Header.Set("Origin", own) })
	if code != http.StatusUnauthorized {
		t.Errorf("POST /approve/PLAN with the approver page login's cookie and the page's Origin: %d %s, want 401", code, body)
	}
	if code, body := httpDo(t, http.MethodGet, d.Port, "/api/approvals", func(r *http.Request) { r.AddCookie(cookie) }); code != http.StatusOK || !strings.Contains(body, `"canApprove":false`) {
		t.Errorf("GET /api/approvals with the cookie alone: want canApprove false: %d %s", code, body)
	}
	if marked(root) {
		t.Fatal("the task ran without a person's approval")
	}
}
