package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Under mcp.confirm a plan runs once a person approved it. Without MCP
// elicitation the person approves outside MCP, on routes the bearer
// token does not open: `vx approve` sends the approval key, which vxd
// writes to .vx/daemon/approve.key (0600) and never tells a client; the
// status page sends the same key, which it keeps in its own origin's
// session storage. Whoever holds only the token (an MCP client) cannot
// approve. No cookie ever approves: a browser sends 127.0.0.1's cookies
// to every port of 127.0.0.1, another local user's server included,
// where session storage stays with the page's origin (port included).

// writeApproveKey makes this daemon's approval key and writes it for
// `vx approve` to read.
func (d *daemon) writeApproveKey() error {
	key, err := newToken()
	if err != nil {
		return err
	}
	d.approveKey = key
	path := layout.ApproveKey(d.root)
	// The key's directory is the user's alone (it may hold the keys of
	// several workspaces' daemons).
	if err := privfile.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	return hashing.WriteFileAtomic(path, []byte(d.approveKey+"\n"), 0o600)
}

// keyMatches reports whether v is the approval key, in time that says
// nothing about how much of v is right.
func (d *daemon) keyMatches(v string) bool {
	if d.approveKey == "" || v == "" {
		return false
	}
	a, b := sha256.Sum256([]byte(v)), sha256.Sum256([]byte(d.approveKey))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// approvals serves the approval routes and the approver login, and
// passes everything else to next (the guard).
func (d *daemon) approvals(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		login := r.Method == http.MethodGet && path == "/" && r.URL.Query().Has(wire.ApproveLoginParam)
		if path != wire.ApprovePath && !strings.HasPrefix(path, wire.ApprovePath+"/") && !login {
			next.ServeHTTP(w, r)
			return
		}
		if !httpapi.LoopbackHost(r.Host, d.port) {
			http.Error(w, "forbidden: the Host header must be 127.0.0.1, localhost or [::1] with this daemon's port", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !httpapi.OwnOrigin(o, d.port) {
			http.Error(w, "forbidden: only the daemon's own status page may approve plans", http.StatusForbidden)
			return
		}
		if login {
			d.approverLogin(w, r)
			return
		}
		by := d.approver(r)
		if by == "" {
			d.log.Warn().Str("method", r.Method).Str("path", clipPath(path)).Bool("bearer", r.Header.Get("Authorization") != "").Msg("refused: an approval without the approval key")
			msg := "unauthorized: approving a plan takes the approval key (what `vx approve` sends, from .vx/daemon/approve.key, " +
				"and the status page opened at the address `vx approve --page` prints); a page login cookie never approves"
			if r.Header.Get("Authorization") != "" {
				msg += "; the MCP bearer token never approves"
			}
			approveError(w, http.StatusUnauthorized, msg)
			return
		}
		d.serveApproval(w, r, by)
	})
}

// approver says who r approves as: the status page (the key from the
// daemon's own origin) or "vx approve" (the key, no Origin); "" without
// the key.
func (d *daemon) approver(r *http.Request) string {
	if !d.keyMatches(r.Header.Get(wire.ApproveKeyHeader)) {
		return ""
	}
	if httpapi.OwnOrigin(r.Header.Get("Origin"), d.port) {
		return plans.ByPage
	}
	return plans.ByCLI
}

// serveApproval lists the plans awaiting approval (GET /approve) or
// approves one (POST /approve/PLAN).
func (d *daemon) serveApproval(w http.ResponseWriter, r *http.Request, by string) {
	id, hasID := strings.CutPrefix(r.URL.Path, wire.ApprovePath+"/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == wire.ApprovePath:
		writeApprovals(w, &wire.Approvals{Pending: d.plans.Pending()})
	case r.Method == http.MethodPost && hasID && id != "" && !strings.Contains(id, "/"):
		b, err := d.plans.Approve(id, by)
		if err != nil {
			approveError(w, http.StatusConflict, err.Error())
			return
		}
		d.log.Info().Str("plan", id).Str("by", by).Msg("plan approved")
		writeApprovals(w, &wire.Approvals{Approved: &b, Pending: d.plans.Pending()})
	default:
		approveError(w, http.StatusNotFound, "not found: GET "+wire.ApprovePath+" lists the plans awaiting approval, POST "+wire.ApprovePath+"/PLAN approves one")
	}
}

// approverLogin turns the approval key (?approver=KEY) into a page
// login, as tokenLogin does with the token, and hands the key to the
// page in the address's fragment (which no browser sends to a server):
// the page keeps it in its session storage and sends it to approve. The
// login cookie itself only reads the page.
func (d *daemon) approverLogin(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get(wire.ApproveLoginParam)
	if !d.keyMatches(key) {
		http.Error(w, "wrong approval key: `vx approve --page` prints the address to open", http.StatusUnauthorized)
		return
	}
	v, err := d.pages.mint()
	if err != nil {
		http.Error(w, "could not mint a page login: "+err.Error(), http.StatusInternalServerError)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: wire.PageCookieName(d.port), Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/#"+wire.ApproveLoginParam+"="+url.QueryEscape(key), http.StatusSeeOther)
}

func writeApprovals(w http.ResponseWriter, a *wire.Approvals) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(a)
}

func approveError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// clipPath bounds a path written to the log.
func clipPath(p string) string {
	if len(p) > 200 {
		return p[:200] + "…"
	}
	return p
}
