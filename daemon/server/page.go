package server

import (
	"context"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/pagekit"
	"github.com/vzn/vx/protocol/wire"
)

//go:embed page/index.html
var pageHTML []byte

// Summary is what the status page loads before following the feed.
type Summary struct {
	Status  *wire.Status          `json:"status"`
	Runs    *ops.RunsOutput       `json:"runs"`
	History *ops.RunHistoryOutput `json:"history"`
	Trends  *ops.TrendsOutput     `json:"trends"`
	Latest  *ops.RunOutput        `json:"latest"`
}

// PageApprovals is what the page shows of the plans awaiting a person's
// approval (mcp.confirm), and whether this login may approve them.
type PageApprovals struct {
	wire.Approvals
	CanApprove bool `json:"canApprove"`
}

// pageRoutes are what a page login opens: the page, its shared script and
// style, and what it reads. Never /mcp, /status or /shutdown: the login
// cookie runs nothing.
var pageRoutes = []string{"GET /", "GET " + pagekit.ScriptPath, "GET " + pagekit.StylePath, "GET /api/summary", "GET /api/approvals", "GET /events"}

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
		if tok != "" && r.Header.Get("Origin") == "" && loopbackHostPort(r.Host, d.port) {
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
			http.Error(w, "wrong token: run `vxd token` for the current one", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (d *daemon) mountPage(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'")
		w.Write(pageHTML)
	})
	// The page components it shares with the platform's dashboard.
	mux.Handle("GET "+pagekit.ScriptPath, pagekit.Handler())
	mux.Handle("GET "+pagekit.StylePath, pagekit.Handler())
	mux.HandleFunc("GET /api/summary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(d.summary(r.Context()))
	})
	mux.HandleFunc("GET /api/approvals", d.serveApprovals)
}

func (d *daemon) serveApprovals(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(PageApprovals{Approvals: wire.Approvals{Pending: d.plans.Pending()}, CanApprove: d.keyMatches(r.Header.Get(wire.ApproveKeyHeader))})
}

func (d *daemon) summary(ctx context.Context) *Summary {
	s := &Summary{Status: d.status(ctx)}
	s.Runs, _ = ops.Runs(ctx, d.env, ops.RunsInput{Limit: opkit.LimitOf(15)})
	// Statistics cover the tasks of the recent rows: enough rows for the
	// latest runs' tasks, so the durations chart shows them all.
	s.History, _ = ops.RunHistory(ctx, d.env, ops.RunHistoryInput{Limit: opkit.LimitOf(200)})
	s.Trends, _ = ops.RunTrends(ctx, d.env, ops.TrendsInput{Bucket: "hour", Limit: opkit.LimitOf(24)})
	s.Latest, _ = ops.Run(ctx, d.env, ops.RunInput{})
	return s
}

// loopbackHostPort reports whether a Host header names this daemon.
func loopbackHostPort(host string, port int) bool {
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if host == name+":"+strconv.Itoa(port) {
			return true
		}
	}
	return false
}
