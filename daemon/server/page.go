package server

import (
	"context"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/vzn/vx/daemon/failures"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

//go:embed page/index.html
var pageHTML []byte

// pageSummary is what the status page loads before following the feed.
type pageSummary struct {
	Status  *wire.Status          `json:"status"`
	Runs    *ops.RunsOutput       `json:"runs"`
	History *ops.RunHistoryOutput `json:"history"`
	Trends  *ops.TrendsOutput     `json:"trends"`
	Latest  *ops.RunOutput        `json:"latest"`
	// Failures say why the latest run's tasks failed (masked), each
	// output cut to failures.Brief; nil when it has none.
	Failures *ops.FailuresOutput `json:"failures,omitempty"`
}

// pageApprovals is what the page shows of the plans awaiting a person's
// approval (mcp.confirm), and whether this login may approve them.
type pageApprovals struct {
	wire.Approvals
	CanApprove bool `json:"canApprove"`
}

// tokenLogin lets a person open the page once with ?token=…: the daemon
// mints a page credential of its own (never the token) into an HttpOnly,
// SameSite=Strict cookie named for this daemon, and sends the browser to
// the clean address, so the token does not linger in the address bar or
// history. Everything else goes through the guard.
func (d *daemon) tokenLogin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var tok string
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			tok = r.URL.Query().Get("token") // (parsed only for the page)
		}
		if tok != "" && r.Header.Get("Origin") == "" && httpapi.LoopbackHost(r.Host, d.port) {
			// (A foreign Host falls through to the guard, which refuses it.)
			if subtle.ConstantTimeCompare([]byte(tok), []byte(d.token)) == 1 {
				v, err := d.pages.mint()
				if err != nil {
					http.Error(w, "could not mint a page login: "+err.Error(), http.StatusInternalServerError)
					return
				}
				http.SetCookie(w, &http.Cookie{Name: wire.PageCookieName(d.port), Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
				http.Redirect(w, r, "/", http.StatusSeeOther)
				return
			}
			http.Error(w, "wrong token: `vxd open` prints a login link for this daemon", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// pageLoginHelp is what opening the page without a login answers: how to
// open it. It names no workspace and no credential (any local page may
// read it).
var pageLoginHelp = []byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>vxd: log in to the status page</title>
<style>body{margin:0;padding:24px 16px;font:15px/1.5 system-ui,sans-serif;color:#1d2330;background:#fafbfc}
main{max-width:640px;margin:0 auto}h1{font-size:20px}code{background:#eef0f4;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}</style>
</head><body><main id="login-help">
<h1>This is vxd's status page: it opens with a login link</h1>
<p>The page shows a workspace's runs, so it needs a login, which this browser does not have
(or had from a vxd that has stopped since: a login ends with the daemon).</p>
<p>In a terminal, in the workspace's directory, run:</p>
<p><code>vxd open</code></p>
<p>It prints a login link for this daemon, and opens it in your browser when it can.
Open that link here; the page then keeps a login cookie of its own.</p>
<p>The link carries the workspace's approval key: keep it to yourself.</p>
</main></body></html>
`)

// servePageLoginHelp answers a page request without a login.
func servePageLoginHelp(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(pageLoginHelp)
}

// The page's own reads (page/index.html fetches them).
const (
	pageSummaryPath   = "/api/summary"
	pageApprovalsPath = "/api/approvals"
)

func servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'")
	w.Write(pageHTML)
}

func (d *daemon) serveSummary(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d.summary(r.Context()))
}

func (d *daemon) serveApprovals(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(pageApprovals{Approvals: wire.Approvals{Pending: d.plans.Pending()}, CanApprove: d.keyMatches(r.Header.Get(wire.ApproveKeyHeader))})
}

func (d *daemon) summary(ctx context.Context) *pageSummary {
	s := &pageSummary{Status: d.status(ctx)}
	s.Runs, _ = ops.Runs(ctx, d.env, ops.RunsInput{Limit: opkit.LimitOf(15)})
	// Statistics cover the tasks of the recent rows: enough rows for the
	// latest runs' tasks, so the durations chart shows them all.
	s.History, _ = ops.RunHistory(ctx, d.env, ops.RunHistoryInput{Limit: opkit.LimitOf(200)})
	s.Trends, _ = ops.RunTrends(ctx, d.env, ops.TrendsInput{Bucket: "hour", Limit: opkit.LimitOf(24)})
	s.Latest, _ = ops.Run(ctx, d.env, ops.RunInput{})
	// A failed or interrupted run (a timed-out task counts in neither
	// passed nor failed totals): say why.
	if l := s.Latest; l != nil && l.Found && l.Run.Status != wire.StatusPassed && l.Run.Status != "running" {
		s.Failures = latestFailures(ctx, d.env, s.Latest.Run.ID)
	}
	return s
}

// latestFailures is why run id failed, each output cut to what a page
// shows (the locations are found in the whole output first).
func latestFailures(ctx context.Context, e *ops.Env, id string) *ops.FailuresOutput {
	ref := opkit.RunID(id)
	f, err := ops.Failures(ctx, e, ops.FailuresInput{RunID: &ref})
	if err != nil {
		return nil
	}
	for i := range f.Failures {
		// Masked again once the colour codes are gone: they may split a
		// secret.
		out, cut := failures.Brief(e.Masker.String(failures.StripANSI(f.Failures[i].Output)))
		f.Failures[i].Output, f.Failures[i].Truncated = out, f.Failures[i].Truncated || cut
	}
	return f
}
